package dev.ax.alerts;

import dev.ax.domain.run.RunState;
import dev.ax.store.ExecutorRow;
import dev.ax.store.Store;
import dev.ax.store.Tx;
import dev.ax.store.read.HealthReads;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the watchdog, /healthz and the gauges look at, read in one transaction of a few small
 * queries, all by the database's clock.
 *
 * @param counts          runs by state (lower case) among the unfinished ones
 * @param starvedGroups   groups with READY runs older than the grace and no live executor
 * @param lastScheduledAt when the newest cron/interval run was created
 * @param overdueTasks    enabled tasks whose next slot is older than the silence threshold
 * @param loopAge         since this node's firing loop last ticked
 * @param history         how much history the database holds (rows, oldest run and event)
 */
record WatchFacts(
        Instant dbTime,
        Long lastInstanceId,
        Instant lastInstanceAt,
        Map<String, Long> counts,
        Instant oldestReadyAt,
        int liveExecutors,
        List<String> starvedGroups,
        Instant lastScheduledAt,
        int overdueTasks,
        Instant oldestOverdue,
        Duration loopAge,
        Duration clockOffset,
        HealthReads.History history) {

    /** Runs that have not finished, READY aside (counted with its oldest): their counts are the first facts. */
    private static final List<RunState> UNFINISHED = List.of(
            RunState.RUNNING,
            RunState.RETRYING,
            RunState.BLOCKED,
            RunState.WAITING_APPROVAL,
            RunState.WAITING_DEPENDENCY);

    /** @param clockOffset how far the database's clock is ahead of this node's; null when not measured */
    static WatchFacts collect(
            Store store,
            Tx tx,
            long executorAliveMillis,
            Duration noExecutorGrace,
            Duration silence,
            Duration loopAge,
            Duration clockOffset) {
        Instant now = tx.now();
        HealthReads.Newest last = HealthReads.newestRun(tx);
        Map<String, Long> counts = new LinkedHashMap<>();
        HealthReads.Backlog ready = HealthReads.ready(tx);
        counts.put("ready", ready.count());
        store.runs()
                .countInStates(tx, UNFINISHED)
                .forEach((state, n) -> counts.put(state.name().toLowerCase(Locale.ROOT), n));
        List<ExecutorRow> live = store.executors().live(tx, executorAliveMillis);
        Set<String> served = new HashSet<>();
        live.forEach(e -> served.addAll(e.groups()));
        List<String> starved = HealthReads.groupsWaitingLongerThan(tx, noExecutorGrace.toMillis()).stream()
                .filter(g -> !served.contains(g))
                .toList();
        HealthReads.Backlog overdue = HealthReads.overdueTasks(tx, silence.toMillis());
        return new WatchFacts(
                now,
                last.id(),
                last.createdAt(),
                counts,
                ready.oldest(),
                live.size(),
                starved,
                HealthReads.lastScheduledRunAt(tx),
                (int) overdue.count(),
                overdue.oldest(),
                loopAge,
                clockOffset,
                HealthReads.history(tx));
    }

    long count(String state) {
        return counts.getOrDefault(state, 0L);
    }

    Duration oldestReadyAge() {
        return oldestReadyAt == null || oldestReadyAt.isAfter(dbTime)
                ? Duration.ZERO
                : Duration.between(oldestReadyAt, dbTime);
    }

    /** The facts as /healthz shows them. */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lastInstanceId", lastInstanceId);
        m.put("lastInstanceAt", lastInstanceAt == null ? null : lastInstanceAt.toString());
        m.put("readyBacklog", count("ready"));
        m.put("readyBacklogAgeSeconds", oldestReadyAge().toSeconds());
        m.put("running", count("running"));
        m.put("retrying", count("retrying"));
        m.put("blocked", count("blocked"));
        m.put("waitingApproval", count("waiting_approval"));
        m.put("liveExecutors", liveExecutors);
        m.put("schedulerLoopAgeMillis", loopAge.toMillis());
        m.put("lastScheduledRunAt", lastScheduledAt == null ? null : lastScheduledAt.toString());
        m.put("overdueTasks", overdueTasks);
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("runs", history.runs());
        h.put("events", history.events());
        h.put("logChunks", history.logChunks());
        h.put(
                "oldestRunAt",
                history.oldestRunAt() == null ? null : history.oldestRunAt().toString());
        h.put(
                "oldestEventAt",
                history.oldestEventAt() == null ? null : history.oldestEventAt().toString());
        m.put("history", h);
        return m;
    }
}
