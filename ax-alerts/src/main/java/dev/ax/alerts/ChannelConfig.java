package dev.ax.alerts;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One configured alert channel, as the {@code --alerts} file names it. Secrets (passwords, robot
 * secrets, webhook tokens, header values) never leave these records: {@code toString} masks them
 * and {@link #target()} describes where alerts go without them.
 */
public sealed interface ChannelConfig {
    /** The {@code type} in the file: email, dingtalk, webhook, feishu, wecom, slack. */
    String type();

    /** Where alerts go, safe to show on /healthz and in logs ("smtp.example.com:587 → ops@example.com"). */
    String target();

    /** Every secret value of this channel, to scrub from error messages before they are stored or logged. */
    List<String> secrets();

    /**
     * SMTP. {@code tls} = STARTTLS required (port 587), {@code ssl} = TLS from the first byte (port 465).
     *
     * @param username null = no authentication
     */
    record Email(
            String host,
            int port,
            boolean tls,
            boolean ssl,
            String username,
            String password,
            String from,
            List<String> to)
            implements ChannelConfig {
        public Email {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(from, "from");
            to = List.copyOf(to);
        }

        @Override
        public String type() {
            return "email";
        }

        @Override
        public String target() {
            return host + ":" + port + " → " + String.join(", ", to);
        }

        @Override
        public List<String> secrets() {
            return password == null ? List.of() : List.of(password);
        }

        @Override
        public String toString() {
            return "Email[" + target() + (username == null ? "" : ", user " + username + ", password ***")
                    + (ssl ? ", ssl" : tls ? ", starttls" : "") + "]";
        }
    }

    /**
     * A DingTalk group robot. With {@code secret} (its "加签" mode) every request carries
     * {@code timestamp} and {@code sign}; {@code atMobiles}/{@code atAll} mention people.
     */
    record DingTalk(String webhook, String secret, List<String> atMobiles, boolean atAll) implements ChannelConfig {
        public DingTalk {
            Objects.requireNonNull(webhook, "webhook");
            atMobiles = atMobiles == null ? List.of() : List.copyOf(atMobiles);
        }

        @Override
        public String type() {
            return "dingtalk";
        }

        @Override
        public String target() {
            return hostOf(webhook);
        }

        @Override
        public List<String> secrets() {
            return secret == null ? List.of(webhook) : List.of(webhook, secret);
        }

        @Override
        public String toString() {
            return "DingTalk[" + target() + (secret == null ? "" : ", signed") + "]";
        }
    }

    /** A generic JSON webhook: the alert as a JSON object, POSTed with the given headers. */
    record Webhook(String url, Map<String, String> headers) implements ChannelConfig {
        public Webhook {
            Objects.requireNonNull(url, "url");
            headers = headers == null ? Map.of() : Map.copyOf(headers);
        }

        @Override
        public String type() {
            return "webhook";
        }

        @Override
        public String target() {
            return hostOf(url);
        }

        @Override
        public List<String> secrets() {
            List<String> s = new ArrayList<>(headers.values());
            // A token in the query string is a secret too; the host alone is what we show.
            if (url.contains("?")) {
                s.add(url.substring(url.indexOf('?') + 1));
            }
            return s;
        }

        @Override
        public String toString() {
            return "Webhook[" + target() + (headers.isEmpty() ? "" : ", headers " + headers.keySet() + " ***") + "]";
        }
    }

    /** Other chat robots whose formats are a few lines each: Feishu/Lark (optionally signed), WeCom, Slack. */
    record Robot(Kind kind, String webhook, String secret) implements ChannelConfig {
        public enum Kind {
            FEISHU,
            WECOM,
            SLACK
        }

        public Robot {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(webhook, "webhook");
        }

        @Override
        public String type() {
            return kind.name().toLowerCase(Locale.ROOT);
        }

        @Override
        public String target() {
            return hostOf(webhook);
        }

        @Override
        public List<String> secrets() {
            return secret == null ? List.of(webhook) : List.of(webhook, secret);
        }

        @Override
        public String toString() {
            return "Robot[" + type() + ", " + target() + (secret == null ? "" : ", signed") + "]";
        }
    }

    /** The host of a URL, or "(invalid URL)": robot URLs carry their token in the path or query. */
    static String hostOf(String url) {
        try {
            URI u = URI.create(url);
            return u.getScheme() + "://" + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort());
        } catch (IllegalArgumentException e) {
            return "(invalid URL)";
        }
    }
}
