package dev.ax.alerts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads the {@code --alerts} JSON file. Every mistake is reported with its field
 * ({@code channels.email.port: must be a number between 1 and 65535}); unknown fields are
 * mistakes too, so a misspelt {@code pasword} does not silently send unauthenticated mail. A
 * string value {@code "${env:NAME}"} is taken from the environment, so secrets need not be in the file.
 */
public final class AlertsConfigReader {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CHANNEL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    private static final Pattern ENV = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

    private final Function<String, String> env;
    private final List<String> errors = new ArrayList<>();
    private final Map<String, Locale> languages = new LinkedHashMap<>();

    private AlertsConfigReader(Function<String, String> env) {
        this.env = env;
    }

    /** The file's configuration, or an {@link IllegalArgumentException} naming every bad field. */
    public static AlertsConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(text, System::getenv);
    }

    public static AlertsConfig parse(String json, Function<String, String> env) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "not valid JSON: " + e.getOriginalMessage()
                            + (e.getLocation() == null
                                    ? ""
                                    : " (line " + e.getLocation().getLineNr() + ")"),
                    e);
        }
        return new AlertsConfigReader(env).config(root);
    }

    private AlertsConfig config(JsonNode root) {
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("(root): must be a JSON object with \"channels\"");
        }
        known(
                root,
                "",
                Set.of("channels", "consoleUrl", "systemChannels", "stormLimit", "watchdog", "anomaly", "logs"));
        Map<String, ChannelConfig> channels = new LinkedHashMap<>();
        JsonNode ch = root.get("channels");
        if (ch != null && !ch.isObject()) {
            errors.add("channels: must be an object of channels by name");
        } else if (ch != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = ch.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String field = "channels." + e.getKey();
                if (!CHANNEL_NAME.matcher(e.getKey()).matches()) {
                    errors.add(field + ": a channel name is 1-100 letters, digits, '_', '.' or '-'");
                    continue;
                }
                ChannelConfig c = channel(field, e.getValue());
                if (c != null) {
                    channels.put(e.getKey(), c);
                    language(e.getValue(), field + ".").ifPresent(l -> languages.put(e.getKey(), l));
                }
            }
        }
        String consoleUrl = url(root, "consoleUrl", "", false);
        List<String> system = strings(root, "systemChannels", "", false);
        if (system != null) {
            for (int i = 0; i < system.size(); i++) {
                if (!channels.containsKey(system.get(i)) && ch != null) {
                    errors.add("systemChannels[" + i + "]: '" + system.get(i) + "' is not one of the channels "
                            + channels.keySet());
                }
            }
        }
        int storm = (int) number(root, "stormLimit", "", AlertsConfig.DEFAULT_STORM_LIMIT, 1, 10_000);
        AlertsConfig.Watch watch = watch(root.get("watchdog"));
        AlertsConfig.Anomaly anomaly = anomaly(root.get("anomaly"));
        AlertsConfig.Logs logs = logs(root.get("logs"));
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", errors));
        }
        try {
            return new AlertsConfig(
                    channels,
                    consoleUrl,
                    system,
                    storm,
                    AlertsConfig.Pipeline.DEFAULT,
                    watch,
                    anomaly,
                    logs,
                    languages,
                    null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private ChannelConfig channel(String field, JsonNode c) {
        if (!c.isObject()) {
            errors.add(field + ": must be an object with a \"type\"");
            return null;
        }
        String type = text(c, "type", field, true);
        if (type == null) {
            return null;
        }
        String f = field + ".";
        return switch (type) {
            case "email" -> email(field, c);
            case "dingtalk" -> {
                known(c, f, Set.of("type", "webhook", "secret", "atMobiles", "atAll", "language"));
                String webhook = url(c, "webhook", f, true);
                String secret = text(c, "secret", f, false);
                List<String> at = strings(c, "atMobiles", f, false);
                boolean all = bool(c, "atAll", f, false);
                yield webhook == null ? null : new ChannelConfig.DingTalk(webhook, secret, at, all);
            }
            case "webhook" -> {
                known(c, f, Set.of("type", "url", "headers", "language"));
                String url = url(c, "url", f, true);
                Map<String, String> headers = new LinkedHashMap<>();
                JsonNode h = c.get("headers");
                if (h != null && !h.isObject()) {
                    errors.add(f + "headers: must be an object of header names to values");
                } else if (h != null) {
                    h.fields().forEachRemaining(e -> {
                        String v = text(h, e.getKey(), f + "headers.", true);
                        if (v != null) {
                            headers.put(e.getKey(), v);
                        }
                    });
                }
                yield url == null ? null : new ChannelConfig.Webhook(url, headers);
            }
            case "feishu", "wecom", "slack" -> {
                known(
                        c,
                        f,
                        type.equals("feishu")
                                ? Set.of("type", "webhook", "secret", "language")
                                : Set.of("type", "webhook", "language"));
                String webhook = url(c, "webhook", f, true);
                String secret = type.equals("feishu") ? text(c, "secret", f, false) : null;
                yield webhook == null
                        ? null
                        : new ChannelConfig.Robot(
                                ChannelConfig.Robot.Kind.valueOf(type.toUpperCase(Locale.ROOT)), webhook, secret);
            }
            default -> {
                errors.add(f + "type: unknown channel type '" + type
                        + "'; use email, dingtalk, webhook, feishu, wecom or slack");
                yield null;
            }
        };
    }

    private ChannelConfig email(String field, JsonNode c) {
        String f = field + ".";
        known(c, f, Set.of("type", "host", "port", "tls", "ssl", "username", "password", "from", "to", "language"));
        String host = text(c, "host", f, true);
        boolean ssl = bool(c, "ssl", f, false);
        boolean tls = bool(c, "tls", f, !ssl);
        int port = (int) number(c, "port", f, ssl ? 465 : tls ? 587 : 25, 1, 65535);
        String user = text(c, "username", f, false);
        String password = text(c, "password", f, false);
        if ((user == null) != (password == null)) {
            errors.add(f + (user == null ? "username" : "password") + ": username and password go together");
        }
        String from = address(c, "from", f);
        List<String> to = strings(c, "to", f, true);
        if (to != null && to.isEmpty()) {
            errors.add(f + "to: at least one recipient");
        }
        if (to != null) {
            for (int i = 0; i < to.size(); i++) {
                checkAddress(to.get(i), f + "to[" + i + "]");
            }
        }
        if (host == null || from == null || to == null || to.isEmpty()) {
            return null;
        }
        return new ChannelConfig.Email(host, port, tls, ssl, user, password, from, to);
    }

    /** A channel's {@code language}: the language its alerts are written in; none = the server's ({@code --locale}). */
    private Optional<Locale> language(JsonNode channel, String prefix) {
        String tag = text(channel, "language", prefix, false);
        if (tag == null) {
            return Optional.empty();
        }
        Optional<Locale> l = AlertWords.parse(tag);
        if (l.isEmpty()) {
            errors.add(prefix + "language: must be one of " + AlertWords.tags() + " (leave it out for the server's"
                    + " --locale), was '" + tag + "'");
        }
        return l;
    }

    // ---- field readers: each reports its own error and returns null (or the default) --------------

    private void known(JsonNode obj, String prefix, Set<String> names) {
        obj.fieldNames().forEachRemaining(n -> {
            if (!names.contains(n)) {
                errors.add(prefix + n + ": unknown field (expected one of " + new TreeSet<>(names) + ")");
            }
        });
    }

    private String text(JsonNode obj, String name, String prefix, boolean required) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            if (required) {
                errors.add(prefix + name + ": required");
            }
            return null;
        }
        if (!v.isTextual() || v.asText().isBlank()) {
            errors.add(prefix + name + ": must be a non-empty string");
            return null;
        }
        String s = v.asText();
        var m = ENV.matcher(s);
        if (m.matches()) {
            String value = env.apply(m.group(1));
            if (value == null || value.isEmpty()) {
                errors.add(prefix + name + ": environment variable " + m.group(1) + " is not set");
                return null;
            }
            return value;
        }
        return s;
    }

    private String url(JsonNode obj, String name, String prefix, boolean required) {
        String s = text(obj, name, prefix, required);
        if (s == null) {
            return null;
        }
        try {
            URI u = new URI(s);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                errors.add(prefix + name + ": must be an http:// or https:// URL with a host");
                return null;
            }
            return s;
        } catch (URISyntaxException e) {
            errors.add(prefix + name + ": not a valid URL (" + e.getReason() + ")");
            return null;
        }
    }

    private String address(JsonNode obj, String name, String prefix) {
        String s = text(obj, name, prefix, true);
        return s != null && checkAddress(s, prefix + name) ? s : null;
    }

    private boolean checkAddress(String s, String field) {
        try {
            new jakarta.mail.internet.InternetAddress(s, true);
            return true;
        } catch (jakarta.mail.internet.AddressException e) {
            errors.add(field + ": not a valid e-mail address ('" + s + "')");
            return false;
        }
    }

    private boolean bool(JsonNode obj, String name, String prefix, boolean dflt) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isBoolean()) {
            errors.add(prefix + name + ": must be true or false");
            return dflt;
        }
        return v.asBoolean();
    }

    private double number(JsonNode obj, String name, String prefix, double dflt, double min, double max) {
        JsonNode v = obj == null ? null : obj.get(name);
        if (v == null || v.isNull()) {
            return dflt;
        }
        if (!v.isNumber() || v.asDouble() < min || v.asDouble() > max) {
            errors.add(prefix + name + ": must be a number between " + fmt(min) + " and " + fmt(max));
            return dflt;
        }
        return v.asDouble();
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private List<String> strings(JsonNode obj, String name, String prefix, boolean required) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            if (required) {
                errors.add(prefix + name + ": required");
            }
            return null;
        }
        if (!v.isArray()) {
            errors.add(prefix + name + ": must be a list of strings");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode item = v.get(i);
            if (!item.isTextual() || item.asText().isBlank()) {
                errors.add(prefix + name + "[" + i + "]: must be a non-empty string");
            } else {
                out.add(item.asText());
            }
        }
        return out;
    }

    private Duration seconds(JsonNode obj, String name, String prefix, Duration dflt, long max) {
        return Duration.ofMillis(Math.round(number(obj, name, prefix, dflt.toMillis() / 1000.0, 0.001, max) * 1000));
    }

    private AlertsConfig.Watch watch(JsonNode w) {
        if (w == null) {
            return AlertsConfig.Watch.DEFAULT;
        }
        String f = "watchdog.";
        known(
                w,
                f,
                Set.of(
                        "intervalSeconds",
                        "loopStallSeconds",
                        "backlogSeconds",
                        "silenceSeconds",
                        "noExecutorSeconds",
                        "clockOffsetSeconds"));
        var d = AlertsConfig.Watch.DEFAULT;
        return new AlertsConfig.Watch(
                seconds(w, "intervalSeconds", f, d.interval(), 86_400),
                seconds(w, "loopStallSeconds", f, d.loopStall(), 86_400),
                seconds(w, "backlogSeconds", f, d.backlogAge(), 86_400 * 7),
                seconds(w, "silenceSeconds", f, d.silence(), 86_400 * 7),
                seconds(w, "noExecutorSeconds", f, d.noExecutor(), 86_400),
                seconds(w, "clockOffsetSeconds", f, d.clockOffset(), 86_400));
    }

    private AlertsConfig.Anomaly anomaly(JsonNode a) {
        if (a == null) {
            return AlertsConfig.Anomaly.DEFAULT;
        }
        String f = "anomaly.";
        known(
                a,
                f,
                Set.of(
                        "intervalSeconds",
                        "windowMinutes",
                        "graceSeconds",
                        "longRunFactor",
                        "longRunMinSeconds",
                        "longRunSamples"));
        var d = AlertsConfig.Anomaly.DEFAULT;
        return new AlertsConfig.Anomaly(
                seconds(a, "intervalSeconds", f, d.interval(), 86_400),
                Duration.ofSeconds(
                        Math.round(number(a, "windowMinutes", f, d.window().toMinutes(), 1, 1440) * 60)),
                seconds(a, "graceSeconds", f, d.grace(), 86_400),
                number(a, "longRunFactor", f, d.longRunFactor(), 1, 1000),
                seconds(a, "longRunMinSeconds", f, d.longRunMin(), 86_400 * 7),
                (int) number(a, "longRunSamples", f, d.longRunSamples(), AlertsConfig.Anomaly.MIN_SAMPLES, 1000));
    }

    private AlertsConfig.Logs logs(JsonNode l) {
        if (l == null) {
            return AlertsConfig.Logs.DEFAULT;
        }
        String f = "logs.";
        known(l, f, Set.of("runMaxMB", "runRetentionDays", "upkeepMinutes", "serverFileMaxMB", "serverTotalMaxMB"));
        var d = AlertsConfig.Logs.DEFAULT;
        long mb = 1024L * 1024;
        return new AlertsConfig.Logs(
                Math.round(number(l, "runMaxMB", f, d.runMaxBytes() / (double) mb, 0.0625, 100_000) * mb),
                (int) number(l, "runRetentionDays", f, d.runRetentionDays(), 1, 36_500),
                Duration.ofSeconds(Math.round(
                        number(l, "upkeepMinutes", f, d.upkeepInterval().toMinutes(), 0.1, 1440) * 60)),
                Math.round(number(l, "serverFileMaxMB", f, d.serverFileMaxBytes() / (double) mb, 1, 100_000) * mb),
                Math.round(number(l, "serverTotalMaxMB", f, d.serverTotalMaxBytes() / (double) mb, 1, 1_000_000) * mb));
    }
}
