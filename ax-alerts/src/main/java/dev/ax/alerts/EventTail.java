package dev.ax.alerts;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.store.AlertStore;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tails the event log into the outbox. One transaction: lock the cursor (SKIP LOCKED, so one
 * node tails at a time), read the events after it, turn those that mean an alert into outbox rows
 * (a duplicate is skipped by the unique key), move the cursor. A crash anywhere rolls all of it
 * back and the next tick reads the same events again: no alert lost, none doubled.
 *
 * <p>Event ids are handed out when a transaction inserts, not when it commits, so a later id may
 * become visible before an earlier one. At a hole in the ids the tail waits, up to
 * {@code pipeline.gapWait}, for the hole to fill; after that it takes the hole for a rolled-back
 * transaction and moves on. An event's {@code at} is when its transaction wrote it (an attempt's
 * claim kept when the next attempt starts says when it happened in its data), so an event older
 * than that wait tells that whatever came before it has committed or never will.
 */
final class EventTail {
    private static final Logger LOG = LoggerFactory.getLogger(EventTail.class);
    /** An event that failed this many batches is skipped, so one bad row cannot stop all alerts. */
    static final int MAX_EVENT_FAILURES = 3;

    private final AlertsContext ctx;
    private final Map<Long, Integer> failures = new ConcurrentHashMap<>();
    private volatile long handled;

    EventTail(AlertsContext ctx) {
        this.ctx = ctx;
    }

    private record Batch(List<EventRow> events, boolean more) {
        static final Batch NONE = new Batch(List.of(), false);
    }

    /** Works through the events after the cursor; returns how many were read. */
    int tick() {
        int total = 0;
        while (true) {
            Batch b;
            long[] current = {-1};
            try {
                b = ctx.store().tx(tx -> batch(tx, current));
            } catch (RuntimeException e) {
                if (current[0] > 0 && failures.merge(current[0], 1, Integer::sum) >= MAX_EVENT_FAILURES) {
                    LOG.error("alert tail: event {} failed {} times; skipping it", current[0], MAX_EVENT_FAILURES, e);
                }
                throw e;
            }
            // Counted once committed: a rolled-back batch is read again and must not count twice.
            b.events().forEach(this::count);
            total += b.events().size();
            handled += b.events().size();
            if (!b.more()) {
                return total;
            }
        }
    }

    long handled() {
        return handled;
    }

    private Batch batch(Tx tx, long[] current) {
        AlertStore store = ctx.store().alerts();
        Optional<Long> cursor = store.lockCursor(tx);
        if (cursor.isEmpty()) {
            return Batch.NONE; // another node is tailing right now
        }
        int limit = ctx.config().pipeline().tailBatch();
        List<EventRow> events = ctx.store().events().after(tx, cursor.get(), limit);
        if (events.isEmpty()) {
            return Batch.NONE;
        }
        Map<Long, RunRow> runs = candidateRuns(tx, events);
        Instant now = tx.now();
        Duration gapWait = ctx.config().pipeline().gapWait();
        long last = cursor.get();
        List<EventRow> taken = new ArrayList<>();
        for (EventRow e : events) {
            if (e.id() != last + 1 && Duration.between(e.at(), now).compareTo(gapWait) < 0) {
                break; // a hole that may still fill: an earlier transaction has not committed yet
            }
            current[0] = e.id();
            if (failures.getOrDefault(e.id(), 0) < MAX_EVENT_FAILURES) {
                handle(tx, e, runs);
            }
            taken.add(e);
            last = e.id();
        }
        if (!taken.isEmpty()) {
            store.advanceCursor(tx, last);
        }
        return new Batch(taken, taken.size() == limit);
    }

    /**
     * The runs of the events that may mean an alert, in one query: every success is one of them, and a
     * query per event was the tail's largest cost.
     */
    private Map<Long, RunRow> candidateRuns(Tx tx, List<EventRow> events) {
        List<Long> ids = events.stream()
                .filter(EventTail::mayAlert)
                .map(EventRow::instanceId)
                .distinct()
                .toList();
        Map<Long, RunRow> runs = new HashMap<>();
        ctx.store().runs().findAll(tx, ids).forEach(run -> runs.put(run.id(), run));
        return runs;
    }

    private static boolean mayAlert(EventRow e) {
        return AlertRules.CANDIDATES.contains(e.type()) && e.instanceId() != null;
    }

    private void handle(Tx tx, EventRow e, Map<Long, RunRow> runs) {
        CanaryAlerts.handle(ctx, tx, e);
        if (!mayAlert(e)) {
            return;
        }
        RunRow run = runs.get(e.instanceId());
        if (run == null || run.cause() == Cause.TEST) {
            return; // a test run of a draft is watched by whoever started it: no alert
        }
        TaskDefinition def = ctx.store().tasks().definition(tx, run.taskId(), run.taskVersion());
        List<String> channels = ctx.channels().configured(def.policy().notifyOnFailure());
        if (channels.isEmpty()) {
            return; // the task asked for no alerts (or only for channels this server does not have)
        }
        Object failureKind = e.data().get("failureKind");
        int failuresBefore = e.type() == EventType.SUCCEEDED && run.cause() != Cause.PREVIEW
                ? ctx.runAlerts().failuresBefore(tx, run)
                : 0;
        Optional<AlertKind> kind = AlertRules.kindOf(
                e.type(),
                e.to(),
                failureKind == null ? null : failureKind.toString(),
                failuresBefore,
                def.policy().notifyOnSuccess());
        if (kind.isEmpty()) {
            return;
        }
        Outbox.Localized content = ctx.runAlerts().compose(tx, kind.get(), e, run, def, failuresBefore);
        ctx.enqueue(
                tx,
                new Outbox.NewAlert(
                        kind.get(),
                        AlertRules.dedupeKey(kind.get(), run.id(), e.id()),
                        run.taskId(),
                        run.taskName(),
                        run.id(),
                        content),
                channels);
    }

    /**
     * The counters told by events. Routine steps (created, claimed, a success) are no events any
     * more, or not always: {@link RunTallies} counts those as the store commits them.
     */
    private void count(EventRow e) {
        AxMetrics m = ctx.metrics();
        if (e.to() != null && e.to().isTerminal() && e.to() != RunState.SUCCESS) {
            m.finished(e.to());
        }
        if (e.to() == RunState.RETRYING) {
            m.retried();
        }
    }
}
