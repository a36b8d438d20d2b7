package dev.ax.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** A browser without a screen: cookies kept, redirects not followed (tests look at them), forms posted. */
final class WebClient {
    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");
    private final HttpClient http;
    private final URI base;

    WebClient(URI base) {
        this.base = base;
        this.http = HttpClient.newBuilder()
                .cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    record Page(int status, String body, String location, String contentType, String serverTiming) {

        /** The CSRF field of the first form on the page. */
        String csrf() {
            Matcher m = CSRF.matcher(body);
            if (!m.find()) {
                throw new AssertionError("no csrf field in:\n" + body);
            }
            return m.group(1);
        }
    }

    Page get(String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    Page post(String path, Map<String, String> form) {
        String body = form.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return send(HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** Logs in and returns the CSRF field of the session. */
    String login(String token) {
        Page p = post("/login", Map.of("token", token, "next", "/tasks"));
        if (p.status() != 303) {
            throw new AssertionError("login failed: " + p.status() + " " + p.body());
        }
        return get("/tasks").csrf();
    }

    static Map<String, String> form(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private Page send(HttpRequest.Builder b) {
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Page(
                    r.statusCode(),
                    r.body(),
                    r.headers().firstValue("Location").orElse(null),
                    r.headers().firstValue("Content-Type").orElse(""),
                    r.headers().firstValue("Server-Timing").orElse(null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
