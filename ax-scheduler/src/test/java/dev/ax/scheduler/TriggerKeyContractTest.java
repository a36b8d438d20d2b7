package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static dev.ax.scheduler.TestNodes.task;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.Tasks.Triggered;
import dev.ax.store.DbConfig;
import dev.ax.store.RunStore.RunFilter;
import dev.ax.store.Store;
import dev.ax.store.TriggerKeyStore;
import dev.ax.store.Tx;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A trigger's idempotency key ({@link TriggerKey}) through the task service, on H2 and PostgreSQL. The nodes are
 * not started, so housekeeping runs only when a test calls it. The many-node race is in ax-api's
 * {@code PostgresTriggerKeyClusterTest}.
 */
abstract class TriggerKeyContractTest {
    static final Duration SHORT_WINDOW = Duration.ofSeconds(2);

    Store store;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        node = TestNodes.node(store, "n1", Duration.ZERO, SchedulerConfig.DEFAULT.withIdempotencyWindow(SHORT_WINDOW));
        node.tasks().create(task("job", event(), "echo {{params.day}}", null), "test");
        // Overflow ALLOW: its unkeyed triggers are written in groups under a shared task lock.
        node.tasks().create(task("flood", event(), "true", Map.of("overflow", "ALLOW")), "test");
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    Triggered trigger(String task, Map<String, Object> params, boolean force, String key) {
        return node.tasks().trigger(task, params, Cause.EVENT, "test", force, key == null ? null : new TriggerKey(key));
    }

    int runs(String task) {
        return store.tx(tx -> store.runs().list(tx, new RunFilter(task, null, null, null), Long.MAX_VALUE, 1000))
                .size();
    }

    long keys() {
        return store.tx(tx -> store.triggerKeys().count(tx));
    }

    Optional<TriggerKeyStore.Earlier> key(String task, String key) {
        long taskId = store.tx(tx -> store.tasks().find(tx, task)).orElseThrow().id();
        return store.tx(tx -> store.triggerKeys().find(tx, taskId, key));
    }

    /** Waits until the database's clock is past {@code key}'s window. */
    void awaitExpiry(String task, String key) {
        Instant expires = key(task, key).orElseThrow().createdAt().plus(SHORT_WINDOW);
        await().atMost(SHORT_WINDOW.plusSeconds(10))
                .until(() -> store.tx(Tx::now).isAfter(expires));
    }

    @Test
    void the_same_key_again_answers_with_the_first_run_and_makes_none() {
        for (String task : new String[] {"job", "flood"}) {
            Triggered first = trigger(task, Map.of("day", "2026-12-01"), false, "order-7");
            Triggered again = trigger(task, Map.of("day", "2026-12-01"), false, "order-7");

            assertThat(first.duplicate()).isFalse();
            assertThat(again).isEqualTo(new Triggered(first.instanceId(), true));
            assertThat(runs(task)).as(task).isEqualTo(1);
        }
    }

    @Test
    void a_shared_admission_task_still_writes_unkeyed_triggers_without_a_key() {
        trigger("flood", Map.of(), false, null); // learns the task admits under a shared lock
        Triggered grouped = trigger("flood", Map.of(), false, null);
        Triggered keyed = trigger("flood", Map.of(), false, "k");

        assertThat(grouped.duplicate()).isFalse();
        assertThat(keyed.duplicate()).isFalse();
        assertThat(runs("flood")).isEqualTo(3);
        assertThat(keys()).as("only the keyed trigger wrote a key").isEqualTo(1);
        assertThat(trigger("flood", Map.of(), false, "k").instanceId()).isEqualTo(keyed.instanceId());
    }

    @Test
    void the_order_of_the_parameters_does_not_make_another_request() {
        Map<String, Object> ab = new LinkedHashMap<>();
        ab.put("day", "2026-12-01");
        ab.put("shop", Map.of("id", 1, "region", "eu"));
        Map<String, Object> ba = new LinkedHashMap<>();
        ba.put("shop", new LinkedHashMap<>(Map.of("region", "eu", "id", 1)));
        ba.put("day", "2026-12-01");

        long first = trigger("job", ab, false, "k").instanceId();

        assertThat(trigger("job", ba, false, "k")).isEqualTo(new Triggered(first, true));
    }

    @Test
    void the_same_key_for_another_request_is_refused_and_writes_nothing() {
        long first = trigger("job", Map.of("day", "2026-12-01"), false, "k").instanceId();

        assertThatThrownBy(() -> trigger("job", Map.of("day", "2026-12-02"), false, "k"))
                .isInstanceOf(KeyReusedException.class)
                .hasMessageContaining("used at")
                .hasMessageContaining("for a different request to task job")
                .hasMessageContaining("run " + first);
        assertThatThrownBy(() -> trigger("job", Map.of("day", "2026-12-01"), true, "k"))
                .as("force is part of the request")
                .isInstanceOf(KeyReusedException.class);

        assertThat(runs("job")).isEqualTo(1);
        assertThat(key("job", "k"))
                .get()
                .extracting(TriggerKeyStore.Earlier::instanceId)
                .isEqualTo(first);
    }

    @Test
    void the_same_key_for_two_tasks_makes_a_run_of_each() {
        long job = trigger("job", Map.of("day", "2026-12-01"), false, "k").instanceId();
        long flood = trigger("flood", Map.of(), false, "k").instanceId();

        assertThat(job).isNotEqualTo(flood);
        assertThat(runs("job")).isEqualTo(1);
        assertThat(runs("flood")).isEqualTo(1);
    }

    @Test
    void a_refused_trigger_leaves_its_key_unused() {
        assertThatThrownBy(() -> trigger("nope", Map.of(), false, "k")).isInstanceOf(NotFoundException.class);
        // The command renders {{params.day}}: without it the run is refused before it exists.
        assertThatThrownBy(() -> trigger("job", Map.of(), false, "k")).isInstanceOf(ValidationException.class);

        assertThat(keys()).isZero();
        assertThat(trigger("job", Map.of("day", "2026-12-01"), false, "k").duplicate())
                .isFalse();
    }

    @Test
    void a_key_past_its_window_makes_a_new_run_and_takes_the_key_over() {
        long first = trigger("job", Map.of("day", "2026-12-01"), false, "k").instanceId();
        awaitExpiry("job", "k");

        Triggered again = trigger("job", Map.of("day", "2026-12-02"), false, "k");

        assertThat(again.duplicate())
                .as("a new request, even with other parameters")
                .isFalse();
        assertThat(again.instanceId()).isNotEqualTo(first);
        assertThat(runs("job")).isEqualTo(2);
        assertThat(keys()).as("the row was taken over, not added").isEqualTo(1);
        assertThat(trigger("job", Map.of("day", "2026-12-02"), false, "k"))
                .isEqualTo(new Triggered(again.instanceId(), true));
    }

    @Test
    void housekeeping_deletes_the_keys_past_their_window_and_keeps_the_others() {
        trigger("job", Map.of("day", "2026-12-01"), false, "old-1");
        trigger("flood", Map.of(), false, "old-2");
        awaitExpiry("job", "old-1");
        awaitExpiry("flood", "old-2");
        trigger("job", Map.of("day", "2026-12-01"), false, "fresh");

        assertThat(node.housekeeping().expireTriggerKeys()).isEqualTo(2);

        assertThat(key("job", "old-1")).isEmpty();
        assertThat(key("flood", "old-2")).isEmpty();
        assertThat(key("job", "fresh")).isPresent();
        awaitExpiry("job", "fresh");
        node.housekeeping().tick();
        assertThat(keys()).as("the housekeeping tick deletes them").isZero();
        assertThat(runs("job") + runs("flood"))
                .as("runs stay; only their keys go")
                .isEqualTo(3);
    }
}
