package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.RunRef;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PostgresStoreTest extends StoreContractTest {
    @Override
    DbConfig config() {
        return TestDatabases.postgres();
    }

    // The one order of instance row locks (ascending id). Each test holds the lower id's row from another
    // transaction, starts a write of both runs that names the higher one first, waits until that write is blocked,
    // and then writes the higher one alone: that goes through only if the blocked write took no lock beyond the
    // row it waits for. With locks taken in the order of the request (or of a join) it would have taken the
    // higher row first, the lone write would wait for it, and a lock timeout fails the test instead of hanging it.

    @Test
    void a_heartbeat_locks_its_runs_in_id_order() throws Exception {
        long a = newInstance("a");
        long b = newInstance("b");
        store.tx(tx -> store.instances().claim(tx, "e1", List.of("default"), 10, 30_000, "n1"));
        List<RunRef> lost = whileLowerRowIsHeld(a,
                () -> store.tx(tx -> store.instances().renewLeases(tx, "e1", List.of(new RunRef(b, 1), new RunRef(a, 1)), 30_000)),
                tx -> store.runBatches().succeedAll(tx, List.of(new RunBatches.Success(b, 1, "e1", 0, null, "executor:e1", "exit 0")), "n1"));
        assertThat(lost).containsExactly(new RunRef(b, 1)); // b ended meanwhile; a's lease was renewed
        assertThat(row(b).state()).isEqualTo(dev.ax.domain.run.InstanceState.SUCCESS);
    }

    @Test
    void a_group_of_successes_locks_its_runs_in_id_order() throws Exception {
        long a = newInstance("a");
        long b = newInstance("b");
        store.tx(tx -> store.instances().claim(tx, "e1", List.of("default"), 10, 30_000, "n1"));
        Set<Long> moved = whileLowerRowIsHeld(a,
                () -> store.tx(tx -> store.runBatches().succeedAll(tx, List.of(
                        new RunBatches.Success(b, 1, "e1", 0, null, "executor:e1", "exit 0"),
                        new RunBatches.Success(a, 1, "e1", 0, null, "executor:e1", "exit 0")), "n1")),
                tx -> store.instances().renewLeases(tx, "e1", List.of(new RunRef(b, 1)), 30_000));
        assertThat(moved).containsExactlyInAnyOrder(a, b);
    }

    @Test
    void a_group_of_starts_locks_its_runs_in_id_order() throws Exception {
        long a = newInstance("a");
        long b = newInstance("b");
        store.tx(tx -> store.instances().claim(tx, "e1", List.of("default"), 10, 30_000, "n1"));
        Set<Long> recorded = whileLowerRowIsHeld(a,
                () -> store.tx(tx -> store.runBatches().recordStartedAll(tx, List.of(
                        new RunBatches.Start(new RunRef(b, 1), "e1", 7, "executor:e1"),
                        new RunBatches.Start(new RunRef(a, 1), "e1", 8, "executor:e1")), "n1")),
                tx -> store.instances().renewLeases(tx, "e1", List.of(new RunRef(b, 1)), 30_000));
        assertThat(recorded).containsExactlyInAnyOrder(a, b);
    }

    /**
     * Runs {@code both} while another transaction holds {@code lower}'s row, waits until it is blocked on it, then
     * runs {@code higherAlone} (with a lock timeout) and releases the row; returns what {@code both} returned.
     */
    private <T> T whileLowerRowIsHeld(long lower, java.util.concurrent.Callable<T> both, java.util.function.Consumer<Tx> higherAlone) throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Future<?> holder = threads.submit(() -> store.tx(tx -> {
                tx.query("SELECT id FROM ax_instance WHERE id = ? FOR UPDATE", r -> r.lng("id"), lower);
                held.countDown();
                release.join();
                return null;
            }));
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            Future<T> blocked = threads.submit(both);
            await().atMost(Duration.ofSeconds(30)).until(() -> store.tx(tx -> tx.queryOne(
                    "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                    r -> r.integer("n")).orElse(0)) == 1);
            try {
                store.tx(tx -> {
                    tx.update("SET LOCAL lock_timeout = '5s'");
                    higherAlone.accept(tx);
                    return null;
                });
            } finally {
                release.complete(null);
            }
            holder.get(30, TimeUnit.SECONDS);
            return blocked.get(30, TimeUnit.SECONDS);
        }
    }
}
