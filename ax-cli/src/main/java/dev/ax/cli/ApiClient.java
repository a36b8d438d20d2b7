package dev.ax.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.ax.executor.TlsTrust;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;

/**
 * A small client for the AX REST API: JSON in, {@link JsonNode} out, {@code Authorization: Bearer <token>}.
 *
 * <p>Failures come out as exceptions that already carry the command's exit code: an answer outside 2xx is an
 * {@link ApiException} (exit 1), a server that cannot be reached is a {@link CliException} with
 * {@link ExitCodes#UNREACHABLE} (exit 3). Commands therefore only handle the happy path.
 */
public final class ApiClient {
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final int EXCERPT_CHARS = 300;

    private final URI base;
    private final String token;
    private final ObjectMapper json = new ObjectMapper();
    private final SSLContext tls;

    public ApiClient(URI base, String token) {
        this(base, token, null);
    }

    /**
     * @param base  the server, e.g. {@code http://127.0.0.1:7070}; a path prefix (behind a proxy) is kept
     * @param token the bearer token; {@code null} sends no Authorization header (the server will say 401)
     * @param tls   whom to trust for an {@code https://} server ({@code --ca}); null = the system's CAs
     */
    public ApiClient(URI base, String token, SSLContext tls) {
        Objects.requireNonNull(base, "base");
        String s = base.toString();
        this.base = URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s);
        this.token = token;
        this.tls = tls;
    }

    public URI base() {
        return base;
    }

    public ObjectMapper mapper() {
        return json;
    }

    public JsonNode get(String path) {
        return parse(send("GET", path, null, "application/json"));
    }

    public JsonNode post(String path, Object body) {
        return parse(send("POST", path, body, "application/json"));
    }

    /** How often {@link #postIdempotent} sends a request at most: once, and three retries. */
    static final int ATTEMPTS = 4;
    /** The pause before the first retry; it doubles before each further one (250 ms, 500 ms, 1 s). */
    static final Duration FIRST_PAUSE = Duration.ofMillis(250);

    /** A request sent {@link #ATTEMPTS} times without an answer that says what became of it. */
    public static final class GaveUp extends CliException {
        GaveUp(int attempts, String key, CliException last) {
            super(
                    last.exitCode(),
                    "no answer after " + attempts + " attempts with Idempotency-Key " + key + "; the last: "
                            + last.getMessage(),
                    last);
        }
    }

    /**
     * A POST that is safe to send again: it carries {@code Idempotency-Key: key}, and the server makes at most one
     * run for that key whichever attempt reaches it. When an attempt fails in a way that may not have reached the
     * server, or whose answer was lost on the way back — no connection, a connection reset or closed before the
     * answer, no answer in time, or 502/503/504 from the server or a proxy in front of it — it is sent again with the
     * same key, up to {@link #ATTEMPTS} times, {@link #FIRST_PAUSE} apart and doubling; {@code onRetry} is told each
     * time why. Any other answer is final at once. Gives up with {@link GaveUp}.
     */
    public JsonNode postIdempotent(String path, Object body, String key, Consumer<String> onRetry) {
        Map<String, String> headers = Map.of("Idempotency-Key", key);
        long pause = FIRST_PAUSE.toMillis();
        for (int attempt = 1; ; attempt++) {
            try {
                return parse(send("POST", path, body, "application/json", headers));
            } catch (CliException e) {
                if (!unanswered(e)) {
                    throw e;
                }
                if (attempt == ATTEMPTS) {
                    throw new GaveUp(attempt, key, e);
                }
                onRetry.accept("attempt " + attempt + " of " + ATTEMPTS + ": " + e.getMessage());
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(
                        ExitCodes.UNREACHABLE,
                        "interrupted while retrying " + path + " with Idempotency-Key " + key,
                        e);
            }
            pause *= 2;
        }
    }

    /** True when a request may have gone unanswered rather than refused: sending it again with its key is the way to know. */
    private static boolean unanswered(CliException e) {
        if (e instanceof ApiException a) {
            return a.status() == 502 || a.status() == 503 || a.status() == 504;
        }
        return e.getCause() instanceof IOException io && !unknownHost(io);
    }

    /** What {@link #apply} did: the answer, and "created" or "updated". */
    public record Applied(JsonNode view, String verb) {}

    /**
     * Creates with a POST to {@code collection}; when that answers 409 (the name is taken) and
     * {@code itemPath} is known, replaces with a PUT there instead: {@code ax … apply}.
     */
    public Applied apply(String collection, String itemPath, Object body) {
        try {
            return new Applied(post(collection, body), "created");
        } catch (ApiException e) {
            if (e.status() != 409 || itemPath == null) {
                throw e;
            }
            return new Applied(put(itemPath, body), "updated");
        }
    }

    public JsonNode put(String path, Object body) {
        return parse(send("PUT", path, body, "application/json"));
    }

    /** An answer with its status, for routes whose 2xx status says what happened (201 created, 200 replaced). */
    public record Answer(int status, JsonNode body) {}

    /** {@link #put} with the answer's status. */
    public Answer putForStatus(String path, Object body) {
        Reply reply = send("PUT", path, body, "application/json");
        return new Answer(reply.status(), parse(reply));
    }

    public JsonNode delete(String path) {
        return parse(send("DELETE", path, null, "application/json"));
    }

    /** A GET whose answer is plain text (a run's log). */
    public String getText(String path) {
        return send("GET", path, null, "text/plain").text();
    }

    /** One URL path segment, percent-encoded (task names may hold characters that mean something in a path). */
    public static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code path?k=v&...} with the {@code null} values left out. */
    public static String query(String path, Map<String, ?> params) {
        StringBuilder sb = new StringBuilder(path);
        char sep = '?';
        for (Map.Entry<String, ?> e : params.entrySet()) {
            if (e.getValue() == null) {
                continue;
            }
            sb.append(sep)
                    .append(segment(e.getKey()))
                    .append('=')
                    .append(segment(e.getValue().toString()));
            sep = '&';
        }
        return sb.toString();
    }

    /** Builds a parameter map in order; {@link Map#of} refuses the {@code null}s that {@link #query} skips. */
    public static Map<String, Object> params(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private Reply send(String method, String path, Object body, String accept) {
        return send(method, path, body, accept, Map.of());
    }

    /** A GET whose answer is a file (a backup): its bytes. */
    public byte[] getBytes(String path, String accept) {
        return send("GET", path, null, accept, Map.of()).body();
    }

    /** A 2xx answer: its status and body. */
    private record Reply(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * One request over {@link HttpURLConnection}: a command makes one or two requests and exits, and this costs a
     * fraction of {@code java.net.http.HttpClient}'s start (which sets up TLS, a selector thread and an executor
     * even for {@code http://}, about 150 ms of a command's run). Redirects are not followed: an API answer is final.
     */
    private Reply send(String method, String path, Object body, String accept, Map<String, String> headers) {
        HttpURLConnection c;
        try {
            c = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
        } catch (IOException | IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, "not a valid request URL: " + base + path, e);
        }
        try {
            c.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
            c.setReadTimeout((int) REQUEST_TIMEOUT.toMillis());
            c.setInstanceFollowRedirects(false);
            c.setUseCaches(false);
            if (tls != null && c instanceof HttpsURLConnection https) {
                https.setSSLSocketFactory(tls.getSocketFactory());
            }
            c.setRequestMethod(method);
            c.setRequestProperty("Accept", accept);
            headers.forEach(c::setRequestProperty);
            if (token != null && !token.isBlank()) {
                c.setRequestProperty("Authorization", "Bearer " + token);
            }
            byte[] bytes = body == null ? null : write(body).getBytes(StandardCharsets.UTF_8);
            boolean sends = bytes != null || method.equals("POST") || method.equals("PUT");
            if (bytes != null) {
                c.setRequestProperty("Content-Type", "application/json");
            }
            if (sends) {
                // Streaming mode also keeps HttpURLConnection from silently sending a POST a second time when the
                // connection drops before the answer (its default): whether to send again is postIdempotent's call.
                c.setDoOutput(true);
                c.setFixedLengthStreamingMode(bytes == null ? 0 : bytes.length);
            }
            try {
                c.connect();
            } catch (SocketTimeoutException e) {
                throw unreachable("no connection within " + CONNECT_TIMEOUT.toSeconds() + " s", e);
            }
            if (sends) {
                try (OutputStream out = c.getOutputStream()) {
                    if (bytes != null) {
                        out.write(bytes);
                    }
                }
            }
            int status = c.getResponseCode();
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                byte[] answer = in == null ? new byte[0] : in.readAllBytes();
                if (status / 100 != 2) {
                    throw error(status, new String(answer, StandardCharsets.UTF_8));
                }
                return new Reply(status, answer);
            }
        } catch (SocketTimeoutException e) {
            throw unreachable("no answer within " + REQUEST_TIMEOUT.toSeconds() + " s", e);
        } catch (IOException e) {
            if (TlsTrust.isHandshakeFailure(e)) {
                throw new CliException(
                        ExitCodes.UNREACHABLE,
                        "cannot connect securely to the AX server at " + base + ": " + TlsTrust.describe(e)
                                + " (--ca FILE or AX_CA names the CA to trust)",
                        e);
            }
            throw unreachable(describe(e), e);
        }
    }

    private CliException unreachable(String why, Exception cause) {
        return new CliException(
                ExitCodes.UNREACHABLE,
                "cannot reach the AX server at " + base + ": " + why
                        + " (is `ax server` running? set --server or AX_SERVER)",
                cause);
    }

    /** An IOException's message is often null; then a cause's message, or its class name, says what happened. */
    private String describe(IOException e) {
        if (unknownHost(e)) {
            return "unknown host " + base.getHost();
        }
        if (e instanceof ConnectException) {
            return "connection refused";
        }
        if ("Unexpected end of file from server".equals(e.getMessage())
                || "Invalid Http response".equals(e.getMessage())) {
            // What HttpURLConnection says when plain HTTP meets a TLS port (the server drops the connection, or
            // answers with a TLS alert); its own words would send the reader looking for a crashed server.
            return "the server closed the connection without an HTTP answer (does it speak HTTPS? then use https://)";
        }
        Throwable t = e;
        while (t.getCause() != null && (t.getMessage() == null || t.getMessage().isBlank())) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return message == null || message.isBlank() ? t.getClass().getSimpleName() : message;
    }

    private static boolean unknownHost(IOException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof UnresolvedAddressException || c instanceof UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    private ApiException error(int status, String body) {
        String message = null;
        List<ApiException.FieldError> fields = new ArrayList<>();
        try {
            JsonNode error = json.readTree(body).path("error");
            if (error.hasNonNull("message")) {
                message = error.get("message").asText();
            }
            for (JsonNode f : error.path("fields")) {
                fields.add(new ApiException.FieldError(
                        f.path("field").asText(""), f.path("reason").asText("")));
            }
        } catch (JsonProcessingException e) {
            // Not our server's error format (a proxy's HTML page, say): show the start of what came back.
        }
        if (message == null || message.isBlank()) {
            String excerpt = body.strip();
            message = "HTTP " + status
                    + (excerpt.isEmpty()
                            ? ""
                            : ": "
                                    + (excerpt.length() > EXCERPT_CHARS
                                            ? excerpt.substring(0, EXCERPT_CHARS) + "…"
                                            : excerpt));
        }
        if (status == 401) {
            message += " (pass --token, set AX_TOKEN, or run where ax-data/admin.token is)";
        }
        return new ApiException(status, message, fields, body);
    }

    private JsonNode parse(Reply reply) {
        String body = reply.text();
        if (body.isBlank()) {
            return NullNode.getInstance();
        }
        try {
            return json.readTree(body);
        } catch (JsonProcessingException e) {
            throw new CliException(
                    ExitCodes.REFUSED,
                    "the server at " + base + " sent an answer that is not JSON: " + e.getOriginalMessage());
        }
    }

    private String write(Object body) {
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write the request body as JSON", e);
        }
    }
}
