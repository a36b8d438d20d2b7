package dev.ax.executor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.ax.domain.protocol.ApprovalAsk;
import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.Heartbeat;
import dev.ax.domain.protocol.HeartbeatAnswer;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.RegisterAnswer;
import dev.ax.domain.protocol.ReportAnswer;
import dev.ax.domain.protocol.RunStateQuery;
import dev.ax.domain.protocol.Started;
import dev.ax.domain.protocol.WorkItem;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * The executor side of the protocol over HTTP: each call is a {@code POST {server}/api/executor/<call>} with the
 * record as a JSON body and {@code Authorization: Bearer <executor token>}.
 *
 * <p>Status handling: 2xx carries the answer; 401/403 means the token is wrong; 409 on a report (started, log,
 * complete) is the server refusing it because this executor no longer holds the lease, and comes back as a refused
 * {@link ReportAnswer}, not an error; anything else, and any I/O failure, is a {@link ChannelException}, which the
 * agent retries.
 *
 * <p>No request is larger than {@link #MAX_REQUEST_BYTES}, the least a server may be configured to take: whoever
 * batches output already keeps chunks far smaller ({@link LogLines}), and what still comes out larger (a huge
 * executor id, a caller of its own) is split here: a log chunk into several, a completion's tail shipped as log
 * chunks ahead of it, a message or approval summary cut.
 *
 * <p>{@code https://} servers are verified against the JVM's trusted CAs, or against the given {@link SSLContext}
 * ({@link TlsTrust#trusting}), host name included.
 *
 * <p><b>Several servers</b> (the nodes of one cluster): calls go to one of them until it stops answering — no
 * connection, a timeout, or 502/503/504 — and then to the next, which is where they stay. Leases live in the database,
 * so any node renews them and takes the runs' reports: an executor whose node dies keeps its runs. Once the lease is
 * known ({@link #leaseKnown}), a call waits at most a quarter of it, so that a node that hangs (stopped, starved) is
 * left while the leases can still be renewed elsewhere.
 */
public final class HttpExecutorChannel implements ExecutorChannel, AutoCloseable {

    /** Time allowed for every call except poll, and for connecting. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    /** The largest request body sent; a server's --max-request-size may not be set below it. */
    public static final int MAX_REQUEST_BYTES = 256 * 1024;
    /** The longest completion message or approval summary sent; the rest is cut. */
    static final int MAX_TEXT_CHARS = 8000;

    private static final int EXCERPT_CHARS = 200;

    private final List<String> bases;
    /** The server calls go to now: the last one that answered. */
    private volatile int current;

    private volatile Duration callTimeout = CALL_TIMEOUT;
    private final String authorization;
    private final ObjectMapper json;
    private final HttpClient http;
    private final int maxRequestBytes;

    public HttpExecutorChannel(URI server, String token) {
        this(server, token, (SSLContext) null);
    }

    /** @param tls whom to trust for an {@code https://} server; null = the JVM's trusted CAs */
    public HttpExecutorChannel(URI server, String token, SSLContext tls) {
        this(List.of(server), token, defaultMapper(), tls, MAX_REQUEST_BYTES);
    }

    /** A channel to the nodes of one cluster, tried in this order; see the class comment. */
    public HttpExecutorChannel(List<URI> servers, String token, SSLContext tls) {
        this(servers, token, defaultMapper(), tls, MAX_REQUEST_BYTES);
    }

    public HttpExecutorChannel(URI server, String token, ObjectMapper json) {
        this(List.of(server), token, json, null, MAX_REQUEST_BYTES);
    }

    HttpExecutorChannel(URI server, String token, ObjectMapper json, SSLContext tls, int maxRequestBytes) {
        this(List.of(server), token, json, tls, maxRequestBytes);
    }

    HttpExecutorChannel(List<URI> servers, String token, ObjectMapper json, SSLContext tls, int maxRequestBytes) {
        if (servers == null || servers.isEmpty()) {
            throw new IllegalArgumentException("at least one server is required");
        }
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("token is required");
        }
        this.bases = servers.stream()
                .map(Objects::requireNonNull)
                .map(URI::toString)
                .map(s -> (s.endsWith("/") ? s.substring(0, s.length() - 1) : s) + "/api/executor/")
                .toList();
        this.authorization = "Bearer " + token;
        this.json = Objects.requireNonNull(json, "json");
        this.maxRequestBytes = maxRequestBytes;
        // HTTP/1.1: a long-poll is one plain request; no h2c upgrade dance with proxies.
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CALL_TIMEOUT);
        if (tls != null) {
            builder.sslContext(tls);
        }
        this.http = builder.build();
    }

    /** Java time as ISO-8601 strings, unknown fields ignored (a newer server may send more). */
    public static ObjectMapper defaultMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /** The body of the poll answer. */
    record PollAnswer(List<WorkItem> items) {
        PollAnswer {
            items = items == null ? List.of() : List.copyOf(items);
        }
    }

    @Override
    public RegisterAnswer register(Register register) {
        return call("register", register, RegisterAnswer.class, callTimeout, false);
    }

    /** Calls wait at most a quarter of the lease (1 to 10 s): long enough for a busy node, short enough to leave a hung one. */
    @Override
    public void leaseKnown(long leaseMillis) {
        long quarter = Math.max(1000, Math.min(CALL_TIMEOUT.toMillis(), leaseMillis / 4));
        callTimeout = Duration.ofMillis(quarter);
    }

    @Override
    public List<WorkItem> poll(Poll poll) {
        // The server may hold the request for waitMillis before answering "nothing".
        Duration timeout = Duration.ofMillis(poll.waitMillis()).plus(callTimeout);
        PollAnswer answer = call("poll", poll, PollAnswer.class, timeout, false);
        return answer == null ? List.of() : answer.items();
    }

    @Override
    public HeartbeatAnswer heartbeat(Heartbeat heartbeat) {
        return call("heartbeat", heartbeat, HeartbeatAnswer.class, callTimeout, false);
    }

    @Override
    public ReportAnswer started(Started started) {
        return call("started", started, ReportAnswer.class, callTimeout, true);
    }

    @Override
    public ReportAnswer log(LogChunk chunk) {
        byte[] body = write("log", chunk);
        if (body.length <= maxRequestBytes) {
            return post("log", body, ReportAnswer.class, callTimeout, true);
        }
        for (LogChunk part : halves(chunk)) {
            ReportAnswer answer = log(part);
            if (!answer.accepted()) {
                return answer;
            }
        }
        return ReportAnswer.OK;
    }

    @Override
    public ReportAnswer complete(Completion completion) {
        Completion c = completion.message() == null
                ? completion
                : new Completion(
                        completion.executorId(),
                        completion.run(),
                        completion.success(),
                        completion.failureKind(),
                        completion.exitCode(),
                        cut(completion.message()),
                        completion.pid(),
                        completion.tail());
        byte[] body = write("complete", c);
        if (body.length > maxRequestBytes && !c.tail().isEmpty()) {
            // Output first, outcome after, as when nothing is carried: the log is whole when the outcome is recorded.
            for (LogChunk chunk : c.tail()) {
                ReportAnswer answer = log(chunk);
                if (!answer.accepted()) {
                    return answer;
                }
            }
            body = write("complete", c.withTail(List.of()));
        }
        return post("complete", body, ReportAnswer.class, callTimeout, true);
    }

    @Override
    public ReportAnswer requestApproval(ApprovalAsk ask) {
        return call(
                "approval-request",
                new ApprovalAsk(ask.executorId(), ask.run(), cut(ask.summary())),
                ReportAnswer.class,
                callTimeout,
                true);
    }

    @Override
    public ReportAnswer runState(RunStateQuery query) {
        return call("run-state", query, ReportAnswer.class, callTimeout, true);
    }

    /** Stops the HTTP client; calls in flight fail with a {@link ChannelException}. */
    @Override
    public void close() {
        http.shutdownNow();
    }

    /** A chunk too large for one request as two, by lines; a single line is cut into pieces first. */
    private List<LogChunk> halves(LogChunk chunk) {
        List<String> lines = chunk.lines().size() == 1
                ? LogLines.pieces(chunk.lines().getFirst(), maxRequestBytes / 2)
                : chunk.lines();
        if (lines.size() == 1) {
            throw new IllegalStateException(
                    "a log chunk of one character exceeds " + maxRequestBytes + " bytes"); // a bug
        }
        int half = lines.size() / 2;
        return List.of(
                new LogChunk(chunk.executorId(), chunk.run(), chunk.stream(), lines.subList(0, half)),
                new LogChunk(chunk.executorId(), chunk.run(), chunk.stream(), lines.subList(half, lines.size())));
    }

    private static String cut(String text) {
        return text == null || text.length() <= MAX_TEXT_CHARS ? text : text.substring(0, MAX_TEXT_CHARS) + "…";
    }

    private byte[] write(String name, Object body) {
        try {
            return json.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + name + " as JSON", e); // a bug, not an outage
        }
    }

    private <T> T call(String name, Object body, Class<T> answerType, Duration timeout, boolean report) {
        return post(name, write(name, body), answerType, timeout, report);
    }

    /**
     * Posts to the current server, and to the next ones in turn while a server does not answer; the first that does
     * becomes the current one. Fails when none answers.
     */
    private <T> T post(String name, byte[] body, Class<T> answerType, Duration timeout, boolean report) {
        int first = current;
        for (int i = 0; ; i++) {
            int at = (first + i) % bases.size();
            try {
                T answer = postTo(bases.get(at), name, body, answerType, timeout, report);
                current = at;
                return answer;
            } catch (Unanswered e) {
                if (i == bases.size() - 1 || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
            }
        }
    }

    /** A server that did not answer at all, or answered that it cannot serve now: another node may. */
    private static final class Unanswered extends ChannelException {
        Unanswered(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private <T> T postTo(String base, String name, byte[] body, Class<T> answerType, Duration timeout, boolean report) {
        URI uri = URI.create(base + name);
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Authorization", authorization)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new Unanswered("cannot reach server at " + uri + ": " + TlsTrust.describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller's loop sees the flag and stops
            throw new ChannelException("interrupted while calling " + uri, e);
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            T answer = read(uri, response.body(), answerType);
            if (answer == null && answerType != PollAnswer.class) { // an empty poll answer just means "no work"
                throw new ChannelException("empty answer from " + uri + " (HTTP " + status + ")", null);
            }
            return answer;
        }
        if (status == 401 || status == 403) {
            throw new ChannelException("executor token refused by server (HTTP " + status + ")", null);
        }
        if (status == 409 && report) {
            return answerType.cast(refusal(response.body()));
        }
        if (status == 502 || status == 503 || status == 504) {
            throw new Unanswered(
                    "server answered HTTP " + status + " to " + uri + ": " + excerpt(response.body()), null);
        }
        throw new ChannelException(
                "server answered HTTP " + status + " to " + uri + ": " + excerpt(response.body()), null);
    }

    /** A 409 is a refusal whatever its body says; its reason is the body's, or the body itself. */
    private ReportAnswer refusal(String body) {
        try {
            ReportAnswer answer = json.readValue(body, ReportAnswer.class);
            return ReportAnswer.refused(answer.reason());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return ReportAnswer.refused("HTTP 409: " + excerpt(body));
        }
    }

    private <T> T read(URI uri, String body, Class<T> type) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return json.readValue(body, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new ChannelException("unreadable answer from " + uri + ": " + e.getMessage(), e);
        }
    }

    private static String excerpt(String body) {
        if (body == null || body.isBlank()) {
            return "(empty body)";
        }
        String flat = body.strip().replaceAll("\\s+", " ");
        return flat.length() <= EXCERPT_CHARS ? flat : flat.substring(0, EXCERPT_CHARS) + "…";
    }
}
