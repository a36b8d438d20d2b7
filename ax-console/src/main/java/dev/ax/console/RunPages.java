package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.ApprovalItem;
import dev.ax.console.Views.ChainItem;
import dev.ax.console.Views.EventItem;
import dev.ax.console.Views.Option;
import dev.ax.console.Views.RunDetail;
import dev.ax.console.Views.RunList;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.secret.SecretMask;
import dev.ax.domain.task.Approval;
import dev.ax.scheduler.NotFoundException;
import dev.ax.store.EventRow;
import dev.ax.store.LogStore.LogLine;
import dev.ax.store.RunRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.read.ConsoleReads;
import dev.ax.store.read.ConsoleReads.RunListFilter;
import dev.ax.store.read.ConsoleReads.RunListRow;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The runs list, a run's whole story, and what can be done to a run: one handler per page or action,
 * longer than most files here because a run's page shows everything a run has (approval, shards,
 * trigger chain, dependencies).
 */
final class RunPages {
    static final int PAGE_SIZE = 50;
    static final int MAX_EVENTS = 500;
    /** Log chunks rendered with the page; a longer log is cut here and the API serves all of it. */
    static final int MAX_LOG_CHUNKS = 2000;

    static final int MAX_CHAIN = 50;
    static final int PREVIEW_LINES = 50;
    private static final Set<RunState> CANCELABLE = Set.of(
            RunState.READY,
            RunState.BLOCKED,
            RunState.RETRYING,
            RunState.WAITING_APPROVAL,
            RunState.WAITING_DEPENDENCY);
    private static final Set<RunState> RETRYABLE = Set.of(RunState.FAILED, RunState.TERMINATED, RunState.CANCELED);

    private final ConsoleContext c;

    RunPages(ConsoleContext c) {
        this.c = c;
    }

    void list(Context ctx, Who who) {
        String task = blankToNull(ctx.queryParam("task"));
        RunState state = enumParam(ctx, "state", RunState.class);
        Cause cause = enumParam(ctx, "cause", Cause.class);
        Period since = Period.of(blankToNull(ctx.queryParam("since")));
        long before = longParam(ctx, "before", Long.MAX_VALUE);
        Store store = c.store();
        List<RunListRow> rows = store.tx(tx -> {
            // A deleted task's runs are found by the ids its name had (its versions outlive it).
            List<Long> taskIds = task == null
                    ? null
                    : store.tasks()
                            .find(tx, task)
                            .map(t -> List.of(t.id()))
                            .orElseGet(() -> ConsoleReads.taskIdsNamed(tx, task));
            long fromId =
                    since == null ? 0 : ConsoleReads.firstIdSince(tx, tx.now().minus(since.length()));
            return ConsoleReads.runs(tx, new RunListFilter(taskIds, state, cause, fromId), before, PAGE_SIZE + 1);
        });
        boolean more = rows.size() > PAGE_SIZE;
        List<RunListRow> page = more ? rows.subList(0, PAGE_SIZE) : rows;
        String filter = query("task", task)
                + query("state", state == null ? null : state.name())
                + query("cause", cause == null ? null : cause.name())
                + query("since", since == null ? null : since.wire());
        c.templates()
                .page(
                        ctx,
                        "runs.jte",
                        new Page("Runs", "runs", who, Session.takeFlash(ctx)),
                        new RunList(
                                task,
                                options(RunState.values(), state),
                                options(Cause.values(), cause),
                                Period.options(since),
                                Items.runs(page),
                                more ? String.valueOf(page.getLast().id()) : null,
                                filter));
    }

    void show(Context ctx, Who who) {
        long id = pathId(ctx);
        Store store = c.store();
        RunDetail view = store.tx(tx -> detail(tx, id, who));
        c.templates()
                .page(
                        ctx,
                        "run.jte",
                        new Page("Run " + id + " · " + view.taskName(), "runs", who, Session.takeFlash(ctx)),
                        view);
    }

    private RunDetail detail(Tx tx, long id, Who who) {
        Store store = c.store();
        RunRow r = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
        SecretMask mask = c.mask();
        List<EventItem> events = store.events().forRun(tx, id, 0, MAX_EVENTS).stream()
                .map(e -> event(e, mask))
                .toList();
        List<LogLine> chunks = store.logs().read(tx, id, 0, MAX_LOG_CHUNKS);
        long lastChunk = chunks.isEmpty() ? 0 : chunks.getLast().chunkId();
        int lastAttempt = chunks.isEmpty() ? 1 : chunks.getLast().attempt();
        String team = store.teams().ownerOfRun(tx, id).map(o -> o.team()).orElse(null);
        return new RunDetail(
                r.id(),
                r.taskName(),
                team,
                r.taskVersion(),
                r.state(),
                r.cause().wireName(),
                r.fireKey(),
                Time.of(r.scheduledAt()),
                Time.of(r.createdAt()),
                Time.of(r.startedAt()),
                Time.of(r.finishedAt()),
                Fmt.between(r.startedAt(), r.finishedAt()),
                Items.attempts(r.attempt(), r.maxAttempts()),
                r.group(),
                r.executorId(),
                Fmt.num(r.pid()),
                Fmt.num(r.exitCode()),
                r.failureKind() == null ? null : r.failureKind().name(),
                mask.apply(r.message()),
                r.requestId(),
                params(r),
                Time.of(r.readyAt()),
                Time.of(r.leaseExpiresAt()),
                r.actor(),
                r.nodeId(),
                waitingReason(tx, r),
                chain(tx, r),
                events,
                LogText.of(chunks, 1, mask),
                lastChunk,
                lastAttempt,
                chunks.size() == MAX_LOG_CHUNKS,
                !r.state().isTerminal(),
                approval(tx, r, who),
                r.state() == RunState.RUNNING,
                CANCELABLE.contains(r.state()),
                RETRYABLE.contains(r.state()),
                r.state().isTerminal(),
                c.node().dependencies().waitingFor(tx, id),
                store.shards().ofRun(tx, id).stream()
                        .map(s -> new Views.ShardItem(
                                s.index(),
                                s.total(),
                                s.state().name(),
                                s.attempt(),
                                s.executorId(),
                                Fmt.num(s.pid()),
                                Fmt.num(s.exitCode()),
                                mask.apply(s.message()),
                                Time.of(s.startedAt()),
                                Time.of(s.finishedAt())))
                        .toList());
    }

    /** From the root of the trigger chain to this run, following {@code parentId}. */
    private List<ChainItem> chain(Tx tx, RunRow r) {
        List<ChainItem> links = new ArrayList<>();
        links.add(new ChainItem(r.id(), r.cause().wireName(), r.actor(), true));
        RunRow cur = r;
        while (cur.parentId() != null && links.size() < MAX_CHAIN) {
            RunRow parent = c.store().runs().find(tx, cur.parentId()).orElse(null);
            if (parent == null) {
                break;
            }
            links.addFirst(new ChainItem(parent.id(), parent.cause().wireName(), parent.actor(), false));
            cur = parent;
        }
        return links;
    }

    /** Why a run that is not running waits, in words (the API's {@code waitingReason}). */
    private String waitingReason(Tx tx, RunRow r) {
        Store store = c.store();
        return switch (r.state()) {
            case READY -> {
                if (!store.executors().groupHasLiveExecutor(tx, r.group(), c.executorAliveMillis())) {
                    yield "no executor for group " + r.group() + " is online";
                }
                Instant now = tx.now();
                yield r.readyAt() != null && r.readyAt().isAfter(now)
                        ? "due at " + r.readyAt()
                        : "waiting for an executor to claim it";
            }
            case RETRYING -> "next attempt at " + r.readyAt();
            case BLOCKED ->
                store.tasks()
                        .findById(tx, r.taskId())
                        .map(t -> "waiting for a concurrency slot (maxConcurrency "
                                + t.definition().policy().maxConcurrency() + ")")
                        .orElse("waiting for a concurrency slot");
            case WAITING_APPROVAL -> "waiting for a person to approve";
            case WAITING_DEPENDENCY -> "waiting for its dependencies (see below)";
            default -> null;
        };
    }

    /** The approval request of a run waiting for one: who may decide, until when, the preview's output. */
    private ApprovalItem approval(Tx tx, RunRow r, Who who) {
        if (r.state() != RunState.WAITING_APPROVAL) {
            return null;
        }
        Store store = c.store();
        Approval approval = store.tasks()
                .definitionAt(tx, r.taskId(), r.taskVersion())
                .map(d -> d.policy().approval())
                .orElse(null);
        if (approval == null) {
            // A job may ask mid-run without a gate in its policy: any operator or admin decides.
            approval = new Approval(List.of(), null, false, null);
        }
        RunRow preview = store.runs().previewOf(tx, r.id()).orElse(null);
        String output =
                preview == null ? null : c.mask().apply(tail(store.logs().read(tx, preview.id(), 0, MAX_LOG_CHUNKS)));
        String team = store.tasks()
                .definitionAt(tx, r.taskId(), r.taskVersion())
                .map(d -> d.team())
                .orElse(null);
        String whyNot = null;
        if (!who.may(Permissions.required(Action.APPROVE_RUN), team) || !approval.allows(who.principal(), team)) {
            whyNot = "only " + approvers(approval) + " may decide";
        } else if (approval.fourEyes() && who.name().equals(r.actor())) {
            whyNot = "four-eyes rule: you triggered this run, someone else decides";
        }
        return new ApprovalItem(
                approvers(approval),
                approval.fourEyes(),
                Time.of(r.approvalDeadline()),
                r.actor(),
                preview == null ? null : preview.id(),
                preview == null ? null : preview.state(),
                output,
                whyNot == null,
                whyNot);
    }

    private static String approvers(Approval a) {
        return a.describeApprovers();
    }

    private static String tail(List<LogLine> chunks) {
        List<String> lines = new ArrayList<>();
        for (LogLine chunk : chunks) {
            lines.addAll(Arrays.asList(chunk.text().split("\n", -1)));
        }
        return String.join("\n", lines.subList(Math.max(0, lines.size() - PREVIEW_LINES), lines.size()));
    }

    private static EventItem event(EventRow e, SecretMask mask) {
        String move = e.from() == null && e.to() == null
                ? null
                : (e.from() == null ? "" : e.from().name()) + " → " + (e.to() == null ? "" : e.to().name());
        return new EventItem(
                e.id() == 0 ? null : e.id(),
                e.type().name(),
                move,
                e.attempt(),
                e.actor(),
                Time.of(e.at()),
                mask.apply(e.message()));
    }

    private static String params(RunRow r) {
        return r.params() == null || r.params().isEmpty()
                ? null
                : r.params().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(", "));
    }

    // ---- actions: the same services as the API ---------------------------------------------

    void terminate(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().runs().terminate(id, who.name(), blankToNull(ctx.formParam("reason")));
        done(ctx, id, "terminated run " + id + "; its process tree is being killed");
    }

    void cancel(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().runs().cancel(id, who.name(), blankToNull(ctx.formParam("reason")));
        done(ctx, id, "canceled run " + id);
    }

    void retry(Context ctx, Who who) {
        long id = pathId(ctx);
        long created = c.node().runs().retry(id, who.name());
        done(ctx, created, "run " + created + " retries run " + id);
    }

    void rerun(Context ctx, Who who) {
        long id = pathId(ctx);
        long created = c.node().runs().rerun(id, who.name());
        done(ctx, created, "run " + created + " re-runs run " + id + " with the task's current version");
    }

    void approve(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().approvals().approve(id, who.principal(), blankToNull(ctx.formParam("comment")));
        done(ctx, id, "approved run " + id);
    }

    void reject(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().approvals().reject(id, who.principal(), blankToNull(ctx.formParam("comment")));
        done(ctx, id, "rejected run " + id + "; it is canceled");
    }

    private static void done(Context ctx, long runId, String message) {
        Session.flash(ctx, false, message);
        ctx.redirect("/runs/" + runId, HttpStatus.SEE_OTHER);
    }

    // ---- parameters -------------------------------------------------------------------------

    static long pathId(Context ctx) {
        String raw = ctx.pathParam("id");
        try {
            long id = Long.parseLong(raw);
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new BadRequest("'" + raw + "' is not a run id");
    }

    private static long longParam(Context ctx, String name, long dflt) {
        String raw = blankToNull(ctx.queryParam(name));
        if (raw == null) {
            return dflt;
        }
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new BadRequest(name + ": '" + raw + "' is not a number");
        }
    }

    private static <E extends Enum<E>> E enumParam(Context ctx, String name, Class<E> type) {
        String raw = blankToNull(ctx.queryParam(name));
        if (raw == null) {
            return null;
        }
        try {
            return Enum.valueOf(type, raw.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadRequest(name + ": '" + raw + "' is not one of " + Arrays.toString(type.getEnumConstants()));
        }
    }

    /** The runs list's time filter: runs created in the last hour, day, … (by the database clock). */
    enum Period {
        HOUR("1h", "last hour", Duration.ofHours(1)),
        SIX_HOURS("6h", "last 6 hours", Duration.ofHours(6)),
        DAY("24h", "last 24 hours", Duration.ofHours(24)),
        WEEK("7d", "last 7 days", Duration.ofDays(7)),
        MONTH("30d", "last 30 days", Duration.ofDays(30));

        private final String wire;
        private final String label;
        private final Duration length;

        Period(String wire, String label, Duration length) {
            this.wire = wire;
            this.label = label;
            this.length = length;
        }

        String wire() {
            return wire;
        }

        Duration length() {
            return length;
        }

        static Period of(String wire) {
            if (wire == null) {
                return null;
            }
            for (Period p : values()) {
                if (p.wire.equals(wire)) {
                    return p;
                }
            }
            throw new BadRequest(
                    "since: one of " + Arrays.stream(values()).map(Period::wire).collect(Collectors.joining(", ")));
        }

        static List<Option> options(Period selected) {
            List<Option> out = new ArrayList<>();
            out.add(new Option("", "any time", selected == null));
            for (Period p : values()) {
                out.add(new Option(p.wire, p.label, p == selected));
            }
            return out;
        }
    }

    private static <E extends Enum<E>> List<Option> options(E[] values, E selected) {
        List<Option> out = new ArrayList<>();
        out.add(new Option("", "any", selected == null));
        for (E v : values) {
            out.add(new Option(v.name(), v.name().toLowerCase(Locale.ROOT).replace('_', ' '), v == selected));
        }
        return out;
    }

    private static String query(String name, String value) {
        return value == null ? "" : "&" + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
