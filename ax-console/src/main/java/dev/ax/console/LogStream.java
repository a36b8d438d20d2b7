package dev.ax.console;

import dev.ax.console.Session.Who;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.NotFoundException;
import dev.ax.store.LogStore.LogLine;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.StoreException;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A run's output as it is written, as server-sent events (the run page's htmx SSE extension
 * appends each {@code log} event to the log). Output lives in the database, which every node
 * shares, so the stream reads new chunks after the last one sent, every {@link #POLL_MILLIS};
 * the cursor is the event id, so a browser that reconnects (it sends {@code Last-Event-ID})
 * continues where it was instead of repeating lines.
 *
 * <p>When the run's state differs from the one the page showed ({@code ?state=}), a {@code state}
 * event tells the page to reload its summary (and to stop this stream); the stream also ends after {@link #MAX_SECONDS}, and the browser reconnects.
 * One stream holds one (virtual) thread and no database connection between reads.
 */
final class LogStream {
    static final long POLL_MILLIS = 500;
    static final long KEEPALIVE_MILLIS = 15_000;
    static final long MAX_SECONDS = 600;
    static final int CHUNKS_PER_READ = 500;

    private final ConsoleContext c;

    LogStream(ConsoleContext c) {
        this.c = c;
    }

    void stream(Context ctx, Who who) {
        long id = RunPages.pathId(ctx);
        Store store = c.store();
        long after = Math.max(cursor(ctx.queryParam("after")), cursor(ctx.header("Last-Event-ID")));
        int attempt = Math.max(1, (int) cursor(ctx.queryParam("attempt")));
        RunState now = store.tx(tx -> store.runs().find(tx, id))
                .map(RunRow::state)
                .orElseThrow(() -> new NotFoundException("no run " + id));
        // The state the page showed: a run that moved on before this stream connected must still reload the page.
        RunState seen = shownState(ctx.queryParam("state"), now);
        ctx.status(200);
        ctx.res().setContentType("text/event-stream;charset=utf-8");
        ctx.res().setHeader("Cache-Control", "no-store");
        ctx.res().setHeader("X-Accel-Buffering", "no");
        try {
            follow(ctx.res().getOutputStream(), id, after, attempt, seen, I18n.of(ctx));
        } catch (IOException e) {
            // The reader closed the page or moved on: a normal end.
        } catch (StoreException e) {
            // The database is unreachable or this node is stopping: end; the browser reconnects to a node that can
            // answer.
        } catch (InterruptedException e) {
            // The server is stopping.
            Thread.currentThread().interrupt();
        }
    }

    private void follow(OutputStream out, long id, long after, int attempt, RunState seen, I18n t)
            throws IOException, InterruptedException {
        Store store = c.store();
        write(out, "retry: 2000\n\n");
        long deadline = System.nanoTime() + MAX_SECONDS * 1_000_000_000L;
        long lastWrite = System.nanoTime();
        while (System.nanoTime() - deadline < 0) {
            long from = after;
            Read read = store.tx(tx -> new Read(
                    store.runs().find(tx, id).map(RunRow::state).orElse(null),
                    store.logs().read(tx, id, from, CHUNKS_PER_READ)));
            if (!read.chunks().isEmpty()) {
                after = read.chunks().getLast().chunkId();
                String html = c.templates().fragment("logitems.jte", LogText.of(read.chunks(), attempt, c.mask(), t));
                attempt = read.chunks().getLast().attempt();
                write(out, event("log", after, html));
                lastWrite = System.nanoTime();
                continue; // more may be waiting: read again at once
            }
            if (read.state() != seen) {
                write(
                        out,
                        event(
                                "state",
                                after,
                                read.state() == null ? "gone" : read.state().name()));
                return;
            }
            if (System.nanoTime() - lastWrite > KEEPALIVE_MILLIS * 1_000_000L) {
                // A comment: proxies keep the connection, and a closed page is noticed here.
                write(out, ": keep-alive\n\n");
                lastWrite = System.nanoTime();
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private record Read(RunState state, List<LogLine> chunks) {}

    /**
     * One event; each line of {@code data} gets its own {@code data:} field, as the format requires.
     * A bare CR also ends a line in the format (progress bars print them), so it is split on too.
     */
    static String event(String name, long id, String data) {
        StringBuilder sb = new StringBuilder("event: ")
                .append(name)
                .append('\n')
                .append("id: ")
                .append(id)
                .append('\n');
        for (String line : data.split("\r\n|\r|\n", -1)) {
            sb.append("data: ").append(line).append('\n');
        }
        return sb.append('\n').toString();
    }

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static RunState shownState(String raw, RunState fallback) {
        if (raw == null || raw.isBlank()) {
            return fallback;
        }
        try {
            return RunState.valueOf(raw.strip());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("'" + raw + "' is not a run state");
        }
    }

    private static long cursor(String raw) {
        if (raw == null || raw.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(raw.strip()));
        } catch (NumberFormatException e) {
            throw new BadRequest("'" + raw + "' is not a log position");
        }
    }
}
