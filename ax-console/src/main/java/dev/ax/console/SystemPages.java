package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.ExecutorItem;
import dev.ax.domain.task.RunRetention;
import dev.ax.domain.time.AxClock;
import dev.ax.scheduler.HistoryRetention;
import dev.ax.scheduler.Retention;
import dev.ax.store.DatabaseClock;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.read.HealthReads;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Executors and this node's health. */
final class SystemPages {
    private final ConsoleContext c;

    SystemPages(ConsoleContext c) {
        this.c = c;
    }

    void executors(Context ctx, Who who) {
        I18n t = I18n.of(ctx);
        Store store = c.store();
        long alive = c.executorAliveMillis();
        List<ExecutorItem> items = store.tx(tx -> {
            Instant cutoff = tx.now().minusMillis(alive);
            return store.executors().all(tx).stream()
                    .map(e -> new ExecutorItem(
                            e.id(),
                            String.join(", ", e.groups()),
                            e.host(),
                            Fmt.num(e.pid()),
                            e.version(),
                            Time.of(e.startedAt()),
                            Time.of(e.lastSeenAt()),
                            e.lastSeenAt() != null && !e.lastSeenAt().isBefore(cutoff)))
                    .toList();
        });
        c.templates()
                .page(
                        ctx,
                        "executors.jte",
                        new Page(t.text("page.executors"), "executors", who, Session.takeFlash(ctx)),
                        new Views.Executors(items, alive / 1000));
    }

    void health(Context ctx, Who who) {
        I18n t = I18n.of(ctx);
        Views.Health h = health(c, t);
        if (!"ok".equals(h.status())) {
            ctx.status(503);
        }
        c.templates()
                .page(ctx, "health.jte", new Page(t.text("page.health"), "health", who, Session.takeFlash(ctx)), h);
    }

    private static Views.History history(ConsoleContext c) {
        HealthReads.History h = c.store().tx(HealthReads::history);
        HistoryRetention keep = c.node().context().config().retention();
        Retention.Totals deleted = c.node().retention().totals();
        return new Views.History(
                h.runs(),
                h.events(),
                h.logChunks(),
                h.oldestRunAt() == null ? null : Time.of(h.oldestRunAt()),
                RunRetention.format(keep.runs()),
                RunRetention.format(keep.logs()),
                deleted.runs(),
                deleted.logChunks());
    }

    /** The data of {@code /healthz}: node, both clocks, their offset, loop errors; "unhealthy" when the database does not answer. */
    static Views.Health health(ConsoleContext c, I18n t) {
        AxClock clock = c.node().context().clock();
        Instant nodeView = clock.now();
        Duration offset = clock instanceof DatabaseClock dc ? dc.offset() : null;
        Instant nodeTime = offset == null ? nodeView : nodeView.minus(offset);
        long loopErrors = c.node().loopErrors();
        try {
            Instant dbTime = c.store().tx(Tx::now);
            long offsetMillis = offset != null
                    ? offset.toMillis()
                    : Duration.between(nodeTime, dbTime).toMillis();
            return new Views.Health(
                    "ok",
                    c.nodeId(),
                    Time.of(nodeTime),
                    Time.of(dbTime),
                    t.text("health.offset_ms", offsetMillis),
                    loopErrors,
                    null,
                    history(c));
        } catch (RuntimeException e) {
            return new Views.Health(
                    "unhealthy",
                    c.nodeId(),
                    Time.of(nodeTime),
                    null,
                    "—",
                    loopErrors,
                    t.text("health.db_unreachable", e.getMessage()),
                    null);
        }
    }
}
