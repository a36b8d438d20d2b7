package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.RunRef;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The store's promises that only a database several nodes share makes (PostgreSQL and MariaDB): row locks skipped. */
abstract class ClusterStoreContractTest extends StoreContractTest {
    /** Makes the transaction's statements fail after waiting five seconds for a lock, where they would wait on. */
    abstract void waitForLocksAtMostFiveSeconds(Tx tx);

    /**
     * A heartbeat never waits for a run's row, so it cannot be part of a deadlock (it was, with a group of successes
     * that locked the same runs in another order). While another transaction holds a run, the heartbeat goes through
     * (a lock timeout fails the test if it waits), renews the others, and reports the held one neither renewed nor
     * lost; the next heartbeat renews it.
     */
    @Test
    void a_heartbeat_skips_a_run_another_transaction_holds_without_calling_it_lost() throws Exception {
        long a = newInstance("a");
        long b = newInstance("b");
        store.tx(tx -> store.claims().claim(tx, "e1", List.of("default"), List.of(), 10, 30_000, "n1", null));
        Instant leaseOfA = row(a).leaseExpiresAt();
        Instant leaseOfB = row(b).leaseExpiresAt();
        List<RunRef> both = List.of(new RunRef(b, 1), new RunRef(a, 1));
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        try (ExecutorService threads = Executors.newSingleThreadExecutor()) {
            Future<?> holder = threads.submit(() -> store.tx(tx -> {
                tx.query("SELECT id FROM ax_instance WHERE id = ? FOR UPDATE", r -> r.lng("id"), a);
                held.countDown();
                release.join();
                return null;
            }));
            assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
            LeaseStore.Renewal renewal;
            try {
                renewal = store.tx(tx -> {
                    waitForLocksAtMostFiveSeconds(tx);
                    return store.leases().renew(tx, "e1", both, 60_000);
                });
            } finally {
                release.complete(null);
            }
            holder.get(30, TimeUnit.SECONDS);
            assertThat(renewal.lost()).isEmpty();
            // Not renewed either: the executor must not count a lease the database did not extend.
            assertThat(renewal.renewed()).containsExactly(new RunRef(b, 1));
            assertThat(row(b).leaseExpiresAt()).isAfter(leaseOfB);
            assertThat(row(a).leaseExpiresAt()).isEqualTo(leaseOfA);
        }
        List<RunRef> lostOnceFree = store.tx(tx -> store.leases().renewLeases(tx, "e1", both, 60_000));
        assertThat(lostOnceFree).isEmpty();
        assertThat(row(a).leaseExpiresAt()).isAfter(leaseOfA);
    }
}
