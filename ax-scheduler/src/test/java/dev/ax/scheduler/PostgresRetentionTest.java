package dev.ax.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.RunRef;
import dev.ax.store.DbConfig;
import dev.ax.store.HistoryPartitions;
import dev.ax.store.LogStore;
import dev.ax.store.TestDatabases;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Retention on PostgreSQL, where run output is partitioned by day: besides the contract (which ages output into the
 * partition of what was written before partitioning began, deleted row by row), a day of output entirely expired goes
 * whole, and a day that still holds output someone needs stays.
 */
class PostgresRetentionTest extends RetentionContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }

    /**
     * Days of partitions from 40 days ago, as a database partitioned that long ago has: the first partition (empty in a
     * fresh database) goes, so that output aged into the past lands in the partition of its day.
     */
    void partitionTheLastFortyDays() {
        HistoryPartitions partitions = store.partitions();
        assertThat(partitions.drop("ax_log_legacy")).isTrue();
        LocalDate today = LocalDate.ofInstant(store.tx(tx -> tx.now()), ZoneOffset.UTC);
        store.tx(tx -> partitions.makeDays(tx, today.minusDays(40), today.plusDays(1)));
    }

    String partitionOf(long run) {
        return store.tx(tx -> tx.queryOne(
                        "SELECT CAST(tableoid::regclass AS TEXT) AS p FROM ax_log WHERE instance_id = ?",
                        r -> r.str("p"),
                        run))
                .orElseThrow();
    }

    List<String> partitions() {
        return store.tx(tx -> store.partitions().list(tx)).stream()
                .map(HistoryPartitions.Partition::name)
                .toList();
    }

    @Test
    void a_day_of_expired_output_is_dropped_whole_and_a_day_holding_a_running_runs_output_stays() throws Exception {
        partitionTheLastFortyDays();
        create("chatty", null);
        RunRef ref = goingWithOutput("endless", "started a month ago");
        long going = ref.instanceId();
        long beside = run("chatty", true);
        long alone = run("chatty", true);
        long recent = run("chatty", true);
        age(" WHERE id IN (" + going + ", " + beside + ")", Duration.ofDays(35));
        age(alone, Duration.ofDays(33));
        String pinned = partitionOf(going);
        String expired = partitionOf(alone);
        assertThat(partitionOf(beside)).isEqualTo(pinned);
        assertThat(expired).isNotEqualTo(pinned);

        Retention.Result r = node.retention().tick();

        assertThat(r.logChunks())
                .as("the dropped day's chunk and the expired one beside the live one")
                .isEqualTo(2);
        assertThat(partitions()).doesNotContain(expired).contains(pinned);
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", alone))
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", beside))
                .as("deleted row by row from the day that stays")
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", going))
                .as("the output of a run still going")
                .isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_log WHERE instance_id = ?", recent))
                .isEqualTo(1);
        List<LogStore.LogLine> lines = store.tx(tx -> store.logs().read(tx, going, 0, 10));
        assertThat(lines)
                .as("read through its run's creation, in the day it was written")
                .hasSize(1);
        assertThat(exists(alone)).as("the run stays; only its output expired").isTrue();

        // It ends now: its output stays another log period, and with it its day.
        node.dispatcher().complete(new Completion(EXECUTOR, ref, true, null, 0, "ok"));
        assertThat(node.retention().tick().logChunks()).isZero();
        assertThat(partitions()).contains(pinned);
    }

    @Test
    void two_nodes_expiring_at_once_drop_each_day_once() throws Exception {
        partitionTheLastFortyDays();
        create("chatty", null);
        List<Long> runs = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            runs.add(run("chatty", true));
        }
        for (int i = 0; i < runs.size(); i++) {
            age(runs.get(i), Duration.ofDays(32 + i)); // six days of one chunk each
        }
        List<String> days = runs.stream().map(this::partitionOf).distinct().toList();
        assertThat(days).hasSize(6);
        try (SchedulerNode a = TestNodes.node(store, "a");
                SchedulerNode b = TestNodes.node(store, "b")) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                // A node skips a day another is reading or dropping; rounds go on until every day is gone.
                List<Callable<Long>> work = List.of(() -> untilGone(a, days), () -> untilGone(b, days));
                long chunks = 0;
                for (Future<Long> f : pool.invokeAll(work)) {
                    chunks += f.get(); // a round that threw fails here
                }
                assertThat(chunks)
                        .as("each chunk counted once, by the node that dropped or deleted it")
                        .isEqualTo(6);
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(partitions()).doesNotContainAnyElementsOf(days);
        runs.forEach(id -> assertThat(exists(id)).isTrue());
    }

    /** Rounds of one node until none of {@code days} is left (20 at most); the chunks it deleted. */
    long untilGone(SchedulerNode n, List<String> days) {
        long chunks = 0;
        for (int i = 0; i < 20 && partitions().stream().anyMatch(days::contains); i++) {
            chunks += n.retention().tick().logChunks();
        }
        return chunks;
    }
}
