package dev.ax.api;

import dev.ax.api.Views.ChainLink;
import dev.ax.api.Views.EventView;
import dev.ax.api.Views.LogView;
import dev.ax.api.Views.Page;
import dev.ax.api.Views.Repeated;
import dev.ax.api.Views.RunView;
import dev.ax.domain.run.RunState;
import dev.ax.domain.secret.SecretMask;
import dev.ax.domain.task.Sharding;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.NotFoundException;
import dev.ax.store.LogStore.LogLine;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs: lists, one run with its trigger chain and why it waits, its events and its output; and
 * what an operator does to a run (terminate, cancel, retry, re-run), which {@code Runs} decides.
 */
final class RunHandlers {
    private static final int DEFAULT_LIMIT = 50;
    /** A trigger chain longer than this is cut (a cycle would be a bug; a very long chain is unreadable anyway). */
    private static final int MAX_CHAIN = 50;

    private static final int TEXT_PAGE = 1000;

    private final ApiContext api;

    RunHandlers(ApiContext api) {
        this.api = api;
    }

    void list(Context ctx) {
        RunFilter filter = new RunFilter(
                Params.string(ctx, "task"),
                Params.enumOf(ctx, "state", RunState.class),
                Params.instant(ctx, "from"),
                Params.instant(ctx, "to"));
        int limit = Params.limit(ctx, DEFAULT_LIMIT);
        long before = Cursor.idBefore(Params.string(ctx, "cursor"));
        Store store = api.store();
        Page<RunView> page = store.tx(tx -> {
            List<RunRow> rows = store.runs().list(tx, filter, before, limit + 1);
            boolean more = rows.size() > limit;
            List<RunRow> shown = more ? rows.subList(0, limit) : rows;
            Explainer explain = new Explainer(tx);
            return new Page<>(
                    shown.stream()
                            .map(explain::view)
                            .map(v -> v.masked(api.mask()))
                            .toList(),
                    more ? Cursor.ofId(shown.getLast().id()) : null);
        });
        ctx.json(page);
    }

    void get(Context ctx) {
        long id = Params.pathId(ctx, "id");
        Store store = api.store();
        RunView view = store.tx(tx -> new Explainer(tx).full(find(tx, id))).masked(api.mask());
        ctx.json(
                view.state() == RunState.WAITING_DEPENDENCY
                        ? view.withWaitingFor(api.node().dependencies().waitingFor(id))
                        : view);
    }

    /** {@code POST /api/runs/{id}/terminate}, body {@code {"reason":"..."}} or none. */
    void terminate(Context ctx) {
        long id = Params.pathId(ctx, "id");
        String reason = reason(ctx);
        ctx.json(view(api.runs().terminate(id, Auth.actor(ctx), reason)));
    }

    /** {@code POST /api/runs/{id}/cancel}, body {@code {"reason":"..."}} or none. */
    void cancel(Context ctx) {
        long id = Params.pathId(ctx, "id");
        String reason = reason(ctx);
        ctx.json(view(api.runs().cancel(id, Auth.actor(ctx), reason)));
    }

    /**
     * {@code POST /api/runs/{id}/complete}, body {@code {"attempt":1,"success":true,"status":200,"message":"..."}}:
     * an async HTTP action's service reports how the attempt ended. 200 when applied, 409 when the attempt is over.
     */
    void complete(Context ctx) {
        long id = Params.pathId(ctx, "id");
        Map<String, Object> body = Bodies.object(ctx, api.json());
        if (!(body.get("attempt") instanceof Number attempt)) {
            throw new ValidationException("attempt", "is required: the attempt number from the X-AX-Attempt header");
        }
        if (!(body.get("success") instanceof Boolean success)) {
            throw new ValidationException("success", "is required: true or false");
        }
        Object status = body.get("status");
        if (status != null && !(status instanceof Number)) {
            throw new ValidationException("status", "must be an HTTP status code");
        }
        Object message = body.get("message");
        if (message != null && !(message instanceof String)) {
            throw new ValidationException("message", "must be a string");
        }
        Object shard = body.get("shard");
        if (shard != null && !(shard instanceof Number)) {
            throw new ValidationException("shard", "must be the shard index from the X-AX-Shard-Index header");
        }
        var answer = api.dispatcher()
                .completeFromService(
                        id,
                        shard == null ? null : ((Number) shard).intValue(),
                        attempt.intValue(),
                        success,
                        status == null ? null : ((Number) status).intValue(),
                        (String) message,
                        Auth.actor(ctx));
        ctx.status(answer.accepted() ? 200 : 409).json(answer);
    }

    void retry(Context ctx) {
        long id = Params.pathId(ctx, "id");
        created(ctx, api.runs().retry(id, Auth.actor(ctx)), id);
    }

    void rerun(Context ctx) {
        long id = Params.pathId(ctx, "id");
        created(ctx, api.runs().rerun(id, Auth.actor(ctx)), id);
    }

    private static void created(Context ctx, long newId, long parentId) {
        AuditTrail.note(ctx, "new run " + newId);
        ctx.status(201).header("Location", "/api/runs/" + newId).json(new Repeated(newId, parentId));
    }

    private String reason(Context ctx) {
        Object reason = Bodies.object(ctx, api.json()).get("reason");
        if (reason != null && !(reason instanceof String)) {
            throw new ValidationException("reason", "must be a string: why the run is stopped, for its events");
        }
        return (String) reason;
    }

    private RunView view(RunRow row) {
        return api.store().tx(tx -> new Explainer(tx).full(row)).masked(api.mask());
    }

    /** Oldest first; {@code next} is the id to pass as {@code after} to follow a run as it goes. */
    void events(Context ctx) {
        long id = Params.pathId(ctx, "id");
        long after = Params.nonNegativeLong(ctx, "after", 0);
        int limit = Params.limit(ctx, Params.MAX_LIMIT);
        Store store = api.store();
        List<EventView> items = store.tx(tx -> {
            find(tx, id);
            return store.events().forRun(tx, id, after, limit).stream()
                    .map(e -> EventView.of(e, api.mask()))
                    .toList();
        });
        // The cursor is the last event of the log on the page: routine steps read from the run have no id.
        long next = items.stream()
                .map(EventView::id)
                .filter(Objects::nonNull)
                .mapToLong(Long::longValue)
                .max()
                .orElse(after);
        ctx.json(new Page<>(items, next));
    }

    /**
     * JSON chunks with {@code next} = the last chunk id (to follow a live log with {@code after}),
     * or, with {@code Accept: text/plain} or {@code ?format=text}, all the text after {@code after}.
     */
    void log(Context ctx) {
        long id = Params.pathId(ctx, "id");
        long after = Params.nonNegativeLong(ctx, "after", 0);
        // ?shard=N: one shard's output of a sharded run (policy.sharding).
        Integer shard =
                ctx.queryParam("shard") == null ? null : Params.intIn(ctx, "shard", 0, 0, Sharding.MAX_SHARDS - 1);
        Store store = api.store();
        SecretMask mask = api.mask();
        if (wantsText(ctx)) {
            StringBuilder text = new StringBuilder();
            store.tx(tx -> {
                find(tx, id);
                long cursor = after;
                List<LogLine> chunk;
                do {
                    chunk = store.logs().read(tx, id, shard, cursor, TEXT_PAGE);
                    for (LogLine line : chunk) {
                        text.append(mask.apply(line.text())).append('\n');
                        cursor = line.chunkId();
                    }
                } while (chunk.size() == TEXT_PAGE);
                return null;
            });
            ctx.contentType("text/plain; charset=utf-8").result(text.toString());
            return;
        }
        int limit = Params.limit(ctx, Params.MAX_LIMIT);
        List<LogLine> lines = store.tx(tx -> {
            find(tx, id);
            return store.logs().read(tx, id, shard, after, limit);
        });
        ctx.json(new Page<>(
                lines.stream().map(l -> LogView.of(l, mask)).toList(),
                lines.isEmpty() ? after : lines.getLast().chunkId()));
    }

    private static boolean wantsText(Context ctx) {
        String accept = ctx.header("Accept");
        return "text".equalsIgnoreCase(ctx.queryParam("format"))
                || (accept != null && accept.contains("text/plain") && !accept.contains("application/json"));
    }

    private RunRow find(Tx tx, long id) {
        return api.store().runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
    }

    /** Builds views inside one transaction, asking about each executor group once. */
    private final class Explainer {
        private final Tx tx;
        private final Instant now;
        private final Map<String, Boolean> groupOnline = new HashMap<>();
        private final Map<Long, Optional<Integer>> maxConcurrency = new HashMap<>();

        Explainer(Tx tx) {
            this.tx = tx;
            this.now = tx.now();
        }

        RunView view(RunRow i) {
            return RunView.of(i, chain(i), waitingReason(i));
        }

        /** One run on its own, with the shards of a sharded run (not in lists: a query per run). */
        RunView full(RunRow i) {
            return RunView.of(
                    i, chain(i), waitingReason(i), api.store().shards().ofRun(tx, i.id()));
        }

        /** From the root to {@code i}, following {@code parentId}. */
        private List<ChainLink> chain(RunRow i) {
            List<ChainLink> links = new ArrayList<>();
            links.add(ChainLink.of(i));
            RunRow cur = i;
            while (cur.parentId() != null && links.size() < MAX_CHAIN) {
                RunRow parent = api.store().runs().find(tx, cur.parentId()).orElse(null);
                if (parent == null) {
                    break;
                }
                links.addFirst(ChainLink.of(parent));
                cur = parent;
            }
            return links;
        }

        private String waitingReason(RunRow i) {
            return switch (i.state()) {
                case READY -> {
                    boolean online = groupOnline.computeIfAbsent(
                            i.group(),
                            g -> api.store().executors().groupHasLiveExecutor(tx, g, api.executorAliveMillis()));
                    if (!online) {
                        yield "no executor for group " + i.group() + " is online";
                    }
                    List<String> labels = api.store().tasks().labels(tx, i.taskId(), i.taskVersion());
                    if (!labels.isEmpty()
                            && !api.store()
                                    .executors()
                                    .liveExecutorWithLabels(tx, i.group(), labels, api.executorAliveMillis())) {
                        yield "no online executor of group " + i.group() + " carries the environment labels " + labels;
                    }
                    yield i.readyAt() != null && i.readyAt().isAfter(now) ? "due at " + i.readyAt() : null;
                }
                case RETRYING -> "next attempt at " + i.readyAt();
                case BLOCKED ->
                    maxConcurrency
                            .computeIfAbsent(
                                    i.taskId(),
                                    id -> api.store()
                                            .tasks()
                                            .findById(tx, id)
                                            .map(t -> t.definition().policy().maxConcurrency()))
                            .map(n -> "waiting for a concurrency slot (maxConcurrency " + n + ")")
                            .orElse("waiting for a concurrency slot");
                case WAITING_APPROVAL -> "waiting for a person to approve";
                case WAITING_DEPENDENCY ->
                    i.message() == null ? "waiting for its dependencies (dependsOn)" : i.message();
                default -> null;
            };
        }
    }
}
