package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Claims of one key by transactions at once, on the databases several nodes share (PostgreSQL and MariaDB). */
abstract class ClusterTriggerKeyStoreContractTest extends TriggerKeyStoreContractTest {
    /** True while a transaction waits for a row lock in an insert into ax_trigger_key. */
    abstract boolean aClaimWaitsForALock();

    /**
     * The race the key exists for: a second claim of a key whose first claim has not committed yet waits for it (a
     * shared task lock does not serialise them), then answers with the first one's run instead of taking the key.
     */
    @Test
    void a_claim_waits_for_a_concurrent_claim_of_the_same_key_then_finds_its_run() throws Exception {
        CountDownLatch claimed = new CountDownLatch(1);
        CompletableFuture<Void> commit = new CompletableFuture<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Future<Long> first = threads.submit(() -> store.tx(tx -> {
                assertThat(store.triggerKeys().claim(tx, task.id(), "k1", "h", DAY))
                        .isEmpty();
                store.triggerKeys().bind(tx, task.id(), "k1", 41);
                claimed.countDown();
                commit.join();
                return 41L;
            }));
            assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
            Future<Optional<TriggerKeyStore.Earlier>> second =
                    threads.submit(() -> store.tx(tx -> store.triggerKeys().claim(tx, task.id(), "k1", "h", DAY)));
            await().atMost(Duration.ofSeconds(10)).until(this::aClaimWaitsForALock);
            assertThat(second).isNotDone();

            commit.complete(null);

            assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(41L);
            assertThat(second.get(30, TimeUnit.SECONDS))
                    .get()
                    .extracting(TriggerKeyStore.Earlier::instanceId)
                    .isEqualTo(41L);
        }
    }

    /** A claimer that rolls back leaves the key to the one waiting for it. */
    @Test
    void a_claim_waiting_for_one_that_rolls_back_takes_the_key() throws Exception {
        CountDownLatch claimed = new CountDownLatch(1);
        CompletableFuture<Void> rollBack = new CompletableFuture<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Future<?> first = threads.submit(() -> store.tx(tx -> {
                store.triggerKeys().claim(tx, task.id(), "k1", "h", DAY);
                claimed.countDown();
                rollBack.join();
                throw new IllegalStateException("refused after the claim");
            }));
            assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
            Future<Optional<TriggerKeyStore.Earlier>> second = threads.submit(() -> store.tx(tx -> {
                Optional<TriggerKeyStore.Earlier> e = store.triggerKeys().claim(tx, task.id(), "k1", "h", DAY);
                e.ifPresentOrElse(x -> {}, () -> store.triggerKeys().bind(tx, task.id(), "k1", 42));
                return e;
            }));
            await().atMost(Duration.ofSeconds(10)).until(this::aClaimWaitsForALock);

            rollBack.complete(null);

            assertThat(second.get(30, TimeUnit.SECONDS)).isEmpty();
            assertThat(first).failsWithin(Duration.ofSeconds(30));
            assertThat(runOf(task, "k1")).isEqualTo(42);
        }
    }
}
