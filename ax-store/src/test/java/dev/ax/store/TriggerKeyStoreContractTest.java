package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Triggers' idempotency keys (V36) on every database. A window of zero makes every key expired by the
 * database's own clock, and a day none, so no test waits for time to pass.
 */
abstract class TriggerKeyStoreContractTest {
    static final Duration DAY = Duration.ofDays(1);

    Store store;
    TaskRow task;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        task = newTask("t");
    }

    @AfterEach
    void close() {
        store.close();
    }

    TaskRow newTask(String name) {
        TaskDefinition def = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                name,
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        return store.tx(tx -> store.tasks().insert(tx, def, null, "test"));
    }

    /** Claims {@code key} and, when taken, creates a run and binds it, in one transaction; the claim's answer. */
    Optional<TriggerKeyStore.Earlier> trigger(TaskRow t, String key, String hash, Duration window) {
        return store.tx(tx -> {
            Optional<TriggerKeyStore.Earlier> earlier = store.triggerKeys().claim(tx, t.id(), key, hash, window);
            if (earlier.isEmpty()) {
                long id = store.runs()
                        .create(
                                tx,
                                new NewRun(
                                        t.id(),
                                        t.name(),
                                        1,
                                        Cause.EVENT,
                                        "event:" + UUID.randomUUID(),
                                        Instant.parse("2026-11-29T02:00:00Z"),
                                        Map.of(),
                                        RunState.READY,
                                        1,
                                        "default",
                                        "test",
                                        "n1",
                                        null,
                                        null,
                                        null))
                        .orElseThrow();
                store.triggerKeys().bind(tx, t.id(), key, id);
            }
            return earlier;
        });
    }

    long runOf(TaskRow t, String key) {
        return find(t, key).orElseThrow().instanceId();
    }

    Optional<TriggerKeyStore.Earlier> find(TaskRow t, String key) {
        return store.tx(tx -> store.triggerKeys().find(tx, t.id(), key));
    }

    long keys() {
        return store.tx(tx -> store.triggerKeys().count(tx));
    }

    int deleteExpired(Duration window, int limit) {
        return store.tx(tx -> store.triggerKeys().deleteExpired(tx, window, limit));
    }

    @Test
    void a_free_key_is_taken_and_then_answers_with_its_run_and_request() {
        assertThat(trigger(task, "k1", "hash-a", DAY)).isEmpty();
        long first = runOf(task, "k1");

        Optional<TriggerKeyStore.Earlier> again = trigger(task, "k1", "hash-b", DAY);

        assertThat(again).get().satisfies(e -> {
            assertThat(e.instanceId()).isEqualTo(first);
            assertThat(e.requestHash())
                    .as("the first request's, to tell a repeat from another request")
                    .isEqualTo("hash-a");
            assertThat(e.createdAt()).isNotNull();
        });
        assertThat(keys()).isEqualTo(1);
    }

    @Test
    void the_same_key_of_another_task_is_another_key() {
        TaskRow other = newTask("other");

        assertThat(trigger(task, "k1", "h", DAY)).isEmpty();
        assertThat(trigger(other, "k1", "h", DAY)).isEmpty();

        assertThat(runOf(task, "k1")).isNotEqualTo(runOf(other, "k1"));
    }

    @Test
    void a_key_past_its_window_is_taken_over_by_the_next_request() {
        trigger(task, "k1", "hash-a", DAY);
        long first = runOf(task, "k1");

        assertThat(trigger(task, "k1", "hash-b", Duration.ZERO))
                .as("expired: taken over")
                .isEmpty();

        TriggerKeyStore.Earlier now = find(task, "k1").orElseThrow();
        assertThat(now.instanceId()).isNotEqualTo(first);
        assertThat(now.requestHash()).isEqualTo("hash-b");
        assertThat(trigger(task, "k1", "hash-b", DAY))
                .get()
                .extracting(TriggerKeyStore.Earlier::instanceId)
                .isEqualTo(now.instanceId());
    }

    @Test
    void a_claim_that_rolls_back_leaves_the_key_free() {
        assertThatThrownBy(() -> store.tx(tx -> {
                    store.triggerKeys().claim(tx, task.id(), "k1", "h", DAY);
                    throw new IllegalArgumentException("the parameters do not render");
                }))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(find(task, "k1")).isEmpty();
        assertThat(trigger(task, "k1", "h", DAY)).isEmpty();
    }

    @Test
    void binds_a_run_only_to_a_key_its_transaction_claimed() {
        trigger(task, "k1", "h", DAY);

        assertThatThrownBy(() -> store.tx(tx -> {
                    store.triggerKeys().bind(tx, task.id(), "k1", 999);
                    return null;
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not claimed");
        assertThatThrownBy(() -> store.tx(tx -> {
                    store.triggerKeys().bind(tx, task.id(), "never-claimed", 999);
                    return null;
                }))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void deletes_expired_keys_oldest_first_in_bounded_batches() {
        for (String key : new String[] {"oldest", "middle", "newest"}) {
            trigger(task, key, "h", DAY);
        }

        assertThat(deleteExpired(DAY, 10)).as("none is a day old").isZero();
        assertThat(deleteExpired(Duration.ZERO, 2)).isEqualTo(2);

        assertThat(keys()).isEqualTo(1);
        assertThat(find(task, "newest")).isPresent();
        assertThat(deleteExpired(Duration.ZERO, 2)).isEqualTo(1);
        assertThat(keys()).isZero();
    }
}
