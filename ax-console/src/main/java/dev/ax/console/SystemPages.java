package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Queries.AuditCursor;
import dev.ax.console.Queries.VersionRow;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.ExecutorItem;
import dev.ax.domain.time.AxClock;
import dev.ax.store.DatabaseClock;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Executors, the audit log across tasks, and this node's health. */
final class SystemPages {
    static final int AUDIT_PAGE = 50;

    private final ConsoleContext c;

    SystemPages(ConsoleContext c) {
        this.c = c;
    }

    void executors(Context ctx, Who who) {
        Store store = c.store();
        long alive = c.executorAliveMillis();
        List<ExecutorItem> items = store.tx(tx -> {
            Instant cutoff = tx.now().minusMillis(alive);
            return store.executors().all(tx).stream().map(e -> new ExecutorItem(e.id(), String.join(", ", e.groups()), e.host(),
                    Fmt.num(e.pid()), e.version(), Time.of(e.startedAt()), Time.of(e.lastSeenAt()),
                    e.lastSeenAt() != null && !e.lastSeenAt().isBefore(cutoff))).toList();
        });
        c.templates().page(ctx, "executors.jte", new Page("Executors", "executors", who, Session.takeFlash(ctx)),
                new Views.Executors(items, alive / 1000));
    }

    /** Every change to every task, newest first: the task versions with their diffs and actors. */
    void audit(Context ctx, Who who) {
        AuditCursor before = AuditCursor.decode(ctx.queryParam("before"));
        List<VersionRow> rows = c.store().tx(tx -> Queries.versions(tx, before, AUDIT_PAGE + 1));
        boolean more = rows.size() > AUDIT_PAGE;
        List<VersionRow> page = more ? rows.subList(0, AUDIT_PAGE) : rows;
        VersionRow last = more ? page.getLast() : null;
        c.templates().page(ctx, "audit.jte", new Page("Audit log", "audit", who, Session.takeFlash(ctx)), new Views.Audit(
                page.stream().map(v -> Items.version(v.taskName(), v.version(), v.change(), v.actor(), v.at(), v.diff())).toList(),
                last == null ? null : new AuditCursor(last.at(), last.taskId(), last.version()).encode()));
    }

    void health(Context ctx, Who who) {
        Views.Health h = health(c);
        if (!"ok".equals(h.status())) {
            ctx.status(503);
        }
        c.templates().page(ctx, "health.jte", new Page("Health", "health", who, Session.takeFlash(ctx)), h);
    }

    /** The data of {@code /healthz}: node, both clocks, their offset, loop errors; "unhealthy" when the database does not answer. */
    static Views.Health health(ConsoleContext c) {
        AxClock clock = c.node().context().clock();
        Instant nodeView = clock.now();
        Duration offset = clock instanceof DatabaseClock dc ? dc.offset() : null;
        Instant nodeTime = offset == null ? nodeView : nodeView.minus(offset);
        long loopErrors = c.node().loopErrors();
        try {
            Instant dbTime = c.store().tx(Tx::now);
            long offsetMillis = offset != null ? offset.toMillis() : Duration.between(nodeTime, dbTime).toMillis();
            return new Views.Health("ok", c.nodeId(), Time.of(nodeTime), Time.of(dbTime), offsetMillis + " ms", loopErrors, null);
        } catch (RuntimeException e) {
            return new Views.Health("unhealthy", c.nodeId(), Time.of(nodeTime), null, "—", loopErrors,
                    "database unreachable: " + e.getMessage());
        }
    }
}
