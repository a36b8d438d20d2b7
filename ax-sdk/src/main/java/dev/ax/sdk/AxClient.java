package dev.ax.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.ax.executor.Backoff;
import dev.ax.executor.TlsTrust;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small client for the AX REST API, for services that define, trigger and follow their own tasks:
 * JSON in, Jackson {@link JsonNode} out (the answers are documented in the server's
 * {@code /api/openapi.json}). A failed call throws {@link AxClientException}.
 *
 * <pre>
 * AxClient ax = new AxClient(URI.create("http://ax:7070"), token);
 * ax.apply("""
 *     {"taskName":"sync_orders","trigger":{"type":"cron","expression":"0 * * * *"},
 *      "action":{"type":"sdk","handler":"syncOrders","group":"orders"}}""");
 * long id = ax.trigger("sync_orders", Map.of("since", "2024-05-01"));        // retried safely: one call, one run
 * long same = ax.trigger("sync_orders", Map.of("since", "2024-05-01"), orderId); // the caller's key: one run per key
 * String state = ax.instance(id).get("state").asText();
 * </pre>
 */
public final class AxClient {
    private static final Logger log = LoggerFactory.getLogger(AxClient.class);
    /** How often {@link #trigger} sends its request at most: once, and three retries. */
    static final int TRIGGER_ATTEMPTS = 4;

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int EXCERPT_CHARS = 300;

    private final String base;
    private final String token;
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http;

    /**
     * @param server the AX server, e.g. {@code http://ax:7070} (a path prefix behind a proxy is kept)
     * @param token  a token whose role allows the calls made: viewer to read, operator to trigger and pause, admin to apply
     */
    public AxClient(URI server, String token) {
        this(server, token, null);
    }

    /**
     * @param tls for an {@code https://} server, the TLS context to connect with, e.g. {@code TlsTrust.trusting(caPem)}
     *            to trust a private CA only; null = the JVM's trusted CAs
     */
    public AxClient(URI server, String token, SSLContext tls) {
        Objects.requireNonNull(server, "server");
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("token is required");
        }
        String s = server.toString();
        this.base = s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        this.token = token;
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT);
        if (tls != null) {
            builder.sslContext(tls);
        }
        this.http = builder.build();
    }

    /** Creates the task from its JSON definition, or updates it (a new version) when one of that name exists. */
    public JsonNode apply(String taskJson) {
        JsonNode definition;
        try {
            definition = json.readTree(taskJson);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the task definition is not valid JSON: " + e.getOriginalMessage(), e);
        }
        return apply(definition);
    }

    public JsonNode apply(JsonNode definition) {
        try {
            return send("POST", "/api/tasks", definition);
        } catch (AxClientException e) {
            JsonNode name = definition.get("taskName");
            if (e.status() != 409 || name == null || !name.isTextual()) {
                throw e;
            }
            return send("PUT", "/api/tasks/" + segment(name.asText()), definition);
        }
    }

    public JsonNode task(String name) {
        return send("GET", "/api/tasks/" + segment(name), null);
    }

    public JsonNode pause(String name) {
        return send("POST", "/api/tasks/" + segment(name) + "/pause", null);
    }

    public JsonNode resume(String name) {
        return send("POST", "/api/tasks/" + segment(name) + "/resume", null);
    }

    /**
     * Runs the task now with these parameters ({@code {{params.x}}} in templates, {@link AxContext#params()}); returns the
     * new run id. The call sends an idempotency key of its own (a new UUID) and, when its answer may have been
     * lost, sends the request again with that key (see {@link #trigger(String, Map, String)}): one call, one run.
     */
    public long trigger(String name, Map<String, ?> params) {
        return trigger(name, params, UUID.randomUUID().toString());
    }

    /**
     * Runs the task now under the caller's idempotency key ({@code Idempotency-Key}): the same key for the same task
     * within the server's window (24 h by default) returns the run the first call made instead of making another,
     * so a caller that retries a call of its own (after a crash, say) with the same key never runs the task twice. The
     * same key with other parameters is refused ({@link AxClientException} with status 422).
     *
     * <p>When the request may not have reached the server, or its answer was lost — no connection, a reset, no answer
     * within the timeout, or 502/503/504 — it is sent again with the same key, up to {@value #TRIGGER_ATTEMPTS} times
     * (100 ms, 200 ms, 400 ms apart); then the last failure is thrown, saying the key.
     *
     * @param idempotencyKey 1 to 200 printable ASCII characters, e.g. an order id or a UUID kept with the caller's request
     */
    public long trigger(String name, Map<String, ?> params, String idempotencyKey) {
        if (idempotencyKey == null || !idempotencyKey.matches("[\\x20-\\x7E]{1,200}")) {
            throw new IllegalArgumentException("idempotencyKey must be 1 to 200 printable ASCII characters");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("params", params == null ? Map.of() : params);
        String path = "/api/tasks/" + segment(name) + "/trigger";
        Map<String, String> headers = Map.of("Idempotency-Key", idempotencyKey);
        Backoff backoff = new Backoff();
        for (int attempt = 1; ; attempt++) {
            try {
                return send("POST", path, json.valueToTree(body), headers)
                        .path("instanceId")
                        .asLong();
            } catch (AxClientException e) {
                if (!unanswered(e)) {
                    throw e;
                }
                if (attempt == TRIGGER_ATTEMPTS) {
                    throw new AxClientException(
                            e.status(),
                            "no answer after " + attempt + " attempts with Idempotency-Key " + idempotencyKey
                                    + " (whether the run was created is not known; the same key is safe to send again); the last: "
                                    + e.getMessage(),
                            e.body(),
                            e);
                }
                log.warn(
                        "triggering {}: attempt {} of {} went unanswered ({}); sending it again with the same Idempotency-Key {}",
                        name,
                        attempt,
                        TRIGGER_ATTEMPTS,
                        e.getMessage(),
                        idempotencyKey);
            }
            try {
                backoff.pause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AxClientException(
                        0, "interrupted while triggering " + name + " with Idempotency-Key " + idempotencyKey, null, e);
            }
        }
    }

    /** True when a call may have gone unanswered rather than refused: no answer at all, or a gateway's 502/503/504. */
    private static boolean unanswered(AxClientException e) {
        return e.status() == 0
                ? e.getCause() instanceof IOException
                : e.status() == 502 || e.status() == 503 || e.status() == 504;
    }

    /** One run: state, attempt, executor, message, request id, trigger chain, why it waits. */
    public JsonNode instance(long id) {
        return send("GET", "/api/runs/" + id, null);
    }

    /** A task's runs, newest first (the first page; {@code state} may be null for all). */
    public JsonNode instances(String taskName, String state) {
        StringBuilder path = new StringBuilder("/api/runs?task=").append(segment(taskName));
        if (state != null) {
            path.append("&state=").append(segment(state));
        }
        return send("GET", path.toString(), null);
    }

    /** A run's events, oldest first. */
    public JsonNode events(long id) {
        return send("GET", "/api/runs/" + id + "/events", null);
    }

    /** A run's log as text. */
    public String log(long id) {
        return exchange("GET", "/api/runs/" + id + "/log?format=text", null, "text/plain", Map.of())
                .body();
    }

    private JsonNode send(String method, String path, JsonNode body) {
        return send(method, path, body, Map.of());
    }

    private JsonNode send(String method, String path, JsonNode body, Map<String, String> headers) {
        String answer =
                exchange(method, path, body, "application/json", headers).body();
        if (answer == null || answer.isBlank()) {
            return NullNode.getInstance();
        }
        try {
            return json.readTree(answer);
        } catch (JsonProcessingException e) {
            throw new AxClientException(
                    200, "unreadable answer from " + base + path + ": " + e.getOriginalMessage(), answer, e);
        }
    }

    private HttpResponse<String> exchange(
            String method, String path, JsonNode body, String accept, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", accept)
                .header("Authorization", "Bearer " + token);
        headers.forEach(request::header);
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new AxClientException(
                    0, "cannot reach the AX server at " + base + ": " + TlsTrust.describe(e), null, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxClientException(0, "interrupted while calling " + base + path, null, e);
        }
        if (response.statusCode() / 100 != 2) {
            throw new AxClientException(
                    response.statusCode(), method + " " + path + ": " + errorMessage(response), response.body(), null);
        }
        return response;
    }

    /** The server's {@code {"error":{"message":…}}}, or the start of whatever came back (a proxy's page). */
    private String errorMessage(HttpResponse<String> response) {
        String body = response.body() == null ? "" : response.body();
        try {
            JsonNode message = json.readTree(body).path("error").path("message");
            if (message.isTextual() && !message.asText().isBlank()) {
                return message.asText() + " (HTTP " + response.statusCode() + ")";
            }
        } catch (JsonProcessingException e) {
            // not our error format
        }
        String excerpt = body.strip();
        return "HTTP " + response.statusCode()
                + (excerpt.isEmpty()
                        ? ""
                        : ": "
                                + (excerpt.length() > EXCERPT_CHARS
                                        ? excerpt.substring(0, EXCERPT_CHARS) + "…"
                                        : excerpt));
    }

    private static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
