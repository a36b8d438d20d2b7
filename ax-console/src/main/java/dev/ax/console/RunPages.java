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
import java.util.function.Function;
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
        I18n t = I18n.of(ctx);
        String filter = query("task", task)
                + query("state", state == null ? null : state.name())
                + query("cause", cause == null ? null : cause.name())
                + query("since", since == null ? null : since.wire());
        c.templates()
                .page(
                        ctx,
                        "runs.jte",
                        new Page(t.text("page.runs"), "runs", who, Session.takeFlash(ctx)),
                        new RunList(
                                task,
                                options(RunState.values(), state, v -> t.text("state." + v.name(), v.name()), t),
                                options(Cause.values(), cause, v -> t.cause(v.wireName()), t),
                                Period.options(since, t),
                                Items.runs(page, t),
                                more ? String.valueOf(page.getLast().id()) : null,
                                filter));
    }

    void show(Context ctx, Who who) {
        long id = pathId(ctx);
        Store store = c.store();
        I18n t = I18n.of(ctx);
        RunDetail view = store.tx(tx -> detail(tx, id, who, t));
        c.templates()
                .page(
                        ctx,
                        "run.jte",
                        new Page(t.text("page.run", id, view.taskName()), "runs", who, Session.takeFlash(ctx)),
                        view);
    }

    private RunDetail detail(Tx tx, long id, Who who, I18n t) {
        Store store = c.store();
        RunRow r = store.runs().find(tx, id).orElseThrow(() -> new NotFoundException("no run " + id));
        SecretMask mask = c.mask();
        List<EventItem> events = store.events().forRun(tx, id, 0, MAX_EVENTS).stream()
                .map(e -> event(e, mask, t))
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
                t.between(r.startedAt(), r.finishedAt()),
                Items.attempts(r.attempt(), r.maxAttempts(), t),
                r.group(),
                r.executorId(),
                Fmt.num(r.pid()),
                Fmt.num(r.exitCode()),
                r.failureKind() == null ? null : r.failureKind().name(),
                r.message() == null ? null : Reasons.of(t, mask.apply(r.message())),
                r.requestId(),
                params(r),
                Time.of(r.readyAt()),
                Time.of(r.leaseExpiresAt()),
                r.actor(),
                r.nodeId(),
                waitingReason(tx, r, t),
                chain(tx, r),
                events,
                LogText.of(chunks, 1, mask, t),
                lastChunk,
                lastAttempt,
                chunks.size() == MAX_LOG_CHUNKS,
                !r.state().isTerminal(),
                approval(tx, r, who, t),
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
    private String waitingReason(Tx tx, RunRow r, I18n t) {
        Store store = c.store();
        return switch (r.state()) {
            case READY -> {
                if (!store.executors().groupHasLiveExecutor(tx, r.group(), c.executorAliveMillis())) {
                    yield t.text("waiting.no_executor", r.group());
                }
                Instant now = tx.now();
                yield r.readyAt() != null && r.readyAt().isAfter(now)
                        ? t.text("waiting.due_at", t.time(r.readyAt()))
                        : t.text("waiting.claim");
            }
            case RETRYING -> t.text("waiting.retry_at", r.readyAt() == null ? "—" : t.time(r.readyAt()));
            case BLOCKED ->
                store.tasks()
                        .findById(tx, r.taskId())
                        .map(task -> t.text(
                                "waiting.slot_max", task.definition().policy().maxConcurrency()))
                        .orElse(t.text("waiting.slot"));
            case WAITING_APPROVAL -> t.text("waiting.approval");
            case WAITING_DEPENDENCY -> t.text("waiting.dependencies");
            default -> null;
        };
    }

    /** The approval request of a run waiting for one: who may decide, until when, the preview's output. */
    private ApprovalItem approval(Tx tx, RunRow r, Who who, I18n t) {
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
            whyNot = t.text("approval.only", approvers(approval, t));
        } else if (approval.fourEyes() && who.name().equals(r.actor())) {
            whyNot = t.text("approval.you_triggered");
        }
        return new ApprovalItem(
                approvers(approval, t),
                approval.fourEyes(),
                Time.of(r.approvalDeadline()),
                r.actor(),
                preview == null ? null : preview.id(),
                preview == null ? null : preview.state(),
                output,
                whyNot == null,
                whyNot);
    }

    /** Who may decide, as the task names them (roles and teams are names), or in words when it names nobody. */
    private static String approvers(Approval a, I18n t) {
        return a.approvers().isEmpty() ? t.text("approval.any") : a.describeApprovers();
    }

    private static String tail(List<LogLine> chunks) {
        List<String> lines = new ArrayList<>();
        for (LogLine chunk : chunks) {
            lines.addAll(Arrays.asList(chunk.text().split("\n", -1)));
        }
        return String.join("\n", lines.subList(Math.max(0, lines.size() - PREVIEW_LINES), lines.size()));
    }

    private static EventItem event(EventRow e, SecretMask mask, I18n t) {
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
                e.message() == null ? null : Reasons.of(t, mask.apply(e.message())));
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
        done(ctx, id, "flash.terminated", id);
    }

    void cancel(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().runs().cancel(id, who.name(), blankToNull(ctx.formParam("reason")));
        done(ctx, id, "flash.canceled", id);
    }

    void retry(Context ctx, Who who) {
        long id = pathId(ctx);
        long created = c.node().runs().retry(id, who.name());
        done(ctx, created, "flash.retried", created, id);
    }

    void rerun(Context ctx, Who who) {
        long id = pathId(ctx);
        long created = c.node().runs().rerun(id, who.name());
        done(ctx, created, "flash.reran", created, id);
    }

    void approve(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().approvals().approve(id, who.principal(), blankToNull(ctx.formParam("comment")));
        done(ctx, id, "flash.approved", id);
    }

    void reject(Context ctx, Who who) {
        long id = pathId(ctx);
        c.node().approvals().reject(id, who.principal(), blankToNull(ctx.formParam("comment")));
        done(ctx, id, "flash.rejected", id);
    }

    private static void done(Context ctx, long runId, String key, Object... values) {
        Session.flash(ctx, false, key, values);
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
        HOUR("1h", Duration.ofHours(1)),
        SIX_HOURS("6h", Duration.ofHours(6)),
        DAY("24h", Duration.ofHours(24)),
        WEEK("7d", Duration.ofDays(7)),
        MONTH("30d", Duration.ofDays(30));

        private final String wire;
        private final Duration length;

        Period(String wire, Duration length) {
            this.wire = wire;
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

        static List<Option> options(Period selected, I18n t) {
            List<Option> out = new ArrayList<>();
            out.add(new Option("", t.text("option.any_time"), selected == null));
            for (Period p : values()) {
                out.add(new Option(p.wire, t.text("period." + p.wire), p == selected));
            }
            return out;
        }
    }

    /** A filter's choices: "any", then each value by its code (the URL's), labelled in the person's words. */
    private static <E extends Enum<E>> List<Option> options(E[] values, E selected, Function<E, Object> label, I18n t) {
        List<Option> out = new ArrayList<>();
        out.add(new Option("", t.text("option.any"), selected == null));
        for (E v : values) {
            out.add(new Option(v.name(), plain(label.apply(v)), v == selected));
        }
        return out;
    }

    /** A label that may be rendered content ("失败 FAILED") as plain text, for an {@code <option>}. */
    private static String plain(Object label) {
        if (label instanceof gg.jte.Content content) {
            gg.jte.output.StringOutput out = new gg.jte.output.StringOutput();
            content.writeTo(out);
            return out.toString();
        }
        return String.valueOf(label);
    }

    private static String query(String name, String value) {
        return value == null ? "" : "&" + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
