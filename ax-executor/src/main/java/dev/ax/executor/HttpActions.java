package dev.ax.executor;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.HttpCall;
import dev.ax.domain.protocol.RunRef;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.FailureKind;
import dev.ax.executor.shell.OutputSink;
import dev.ax.executor.shell.RunningShell;
import dev.ax.executor.shell.ShellResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code http} action: one request per attempt, with {@code X-AX-Request-ID} (stable for the
 * run across attempts and re-sends, so the service can deduplicate), {@code X-AX-Instance-ID}
 * and {@code X-AX-Attempt} (a shard of a sharded run also {@code X-AX-Shard-Index} and {@code X-AX-Shard-Total}). 2xx is success; whether a failure is worth another attempt is the
 * server's call (connection errors, timeouts, 429 and 5xx by default). The status, a few headers
 * and the start of the body go to the run's log.
 */
final class HttpActions {
    static final String HTTP = "http";
    static final int LOGGED_BODY_CHARS = 4096;
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final List<String> LOGGED_HEADERS = List.of("content-type", "location", "retry-after", "x-request-id");

    /** One client for every executor of this JVM, built on the first call: building one sets up TLS, a tenth of a second of start-up. */
    private static final class Client {
        static final HttpClient INSTANCE = HttpClient.newBuilder()
                .connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** An HTTP attempt in flight; looks like a started shell to the rest of the executor (pid -1: no process). */
    static final class Call implements RunningShell {
        final CompletableFuture<HttpResponse<String>> response;
        final long startNanos = System.nanoTime(); // a duration, not wall time
        volatile String cancelReason;

        Call(CompletableFuture<HttpResponse<String>> response) {
            this.response = response;
        }

        @Override
        public long pid() {
            return -1;
        }

        @Override
        public ShellResult await() throws InterruptedException {
            try {
                response.get();
            } catch (ExecutionException | CancellationException e) {
                // the outcome is read from the future by completion()
            }
            Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
            return new ShellResult(
                    cancelReason != null ? ShellResult.Outcome.KILLED : ShellResult.Outcome.EXITED,
                    null,
                    -1,
                    took,
                    cancelReason != null ? cancelReason : "HTTP call finished");
        }

        @Override
        public Optional<ShellResult> await(Duration max) throws InterruptedException {
            try {
                response.get(max.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                return Optional.empty();
            } catch (ExecutionException | CancellationException e) {
                // ended: the outcome is read from the future by completion()
            }
            return Optional.of(await());
        }

        @Override
        public void cancel(String reason) {
            if (cancelReason == null) {
                cancelReason = reason;
            }
            response.cancel(true);
        }
    }

    /** Sends the request; never throws for a bad request: the call then fails with the reason. */
    Call start(WorkItem item, OutputSink sink) {
        HttpCall http = item.http();
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(http.url()))
                    .method(
                            http.method(),
                            http.body() == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(http.body()));
            if (item.timeoutSeconds() != null && item.timeoutSeconds() > 0) {
                b.timeout(Duration.ofSeconds(item.timeoutSeconds()));
            }
            http.headers().forEach(b::header);
            b.header("X-AX-Request-ID", item.requestId());
            b.header("X-AX-Instance-ID", Long.toString(item.instanceId()));
            b.header("X-AX-Attempt", Integer.toString(item.attempt()));
            if (item.shardIndex() != null) {
                b.header("X-AX-Shard-Index", item.shardIndex().toString());
                b.header("X-AX-Shard-Total", String.valueOf(item.shardTotal()));
            }
            sink.line(
                    OutputSink.Stream.STDOUT,
                    "[ax] " + http.method() + " " + http.url() + " (X-AX-Request-ID " + item.requestId() + ")");
            return new Call(Client.INSTANCE.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IllegalArgumentException e) {
            return new Call(CompletableFuture.failedFuture(e));
        }
    }

    /** Logs the answer and turns it into the attempt's outcome; empty for a cancelled call (not ours to report). */
    static Optional<Completion> completion(String executorId, RunRef run, Call call, OutputSink sink, boolean async) {
        if (call.cancelReason != null) {
            return Optional.empty();
        }
        HttpResponse<String> response;
        try {
            response = call.response.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | CancellationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            sink.line(OutputSink.Stream.STDERR, "[ax] " + cause);
            FailureKind kind = cause instanceof HttpTimeoutException
                    ? FailureKind.TIMEOUT
                    : cause instanceof IllegalArgumentException ? FailureKind.START_ERROR : FailureKind.CONNECTION;
            return Optional.of(new Completion(executorId, run, false, kind, null, String.valueOf(cause.getMessage())));
        }
        int status = response.statusCode();
        sink.line(OutputSink.Stream.STDOUT, "[ax] HTTP " + status);
        response.headers().map().forEach((name, values) -> {
            if (LOGGED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                sink.line(OutputSink.Stream.STDOUT, "[ax] " + name + ": " + String.join(", ", values));
            }
        });
        String body = response.body() == null ? "" : response.body();
        if (!body.isEmpty()) {
            String shown = body.length() > LOGGED_BODY_CHARS
                    ? body.substring(0, LOGGED_BODY_CHARS) + "… (" + body.length() + " chars)"
                    : body;
            shown.lines().forEach(line -> sink.line(OutputSink.Stream.STDOUT, line));
        }
        if (async && status == 202) {
            return Optional.empty(); // the service reports later; see RunWorker
        }
        if (status / 100 == 2) {
            return Optional.of(new Completion(executorId, run, true, null, status, "HTTP " + status));
        }
        return Optional.of(new Completion(executorId, run, false, FailureKind.HTTP_STATUS, status, "HTTP " + status));
    }

    static boolean isAccepted(Call call) {
        try {
            return call.response.isDone()
                    && !call.response.isCompletedExceptionally()
                    && call.response.get().statusCode() == 202;
        } catch (InterruptedException | ExecutionException e) {
            return false;
        }
    }
}
