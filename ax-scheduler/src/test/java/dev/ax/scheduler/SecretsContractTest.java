package dev.ax.scheduler;

import static dev.ax.scheduler.TestNodes.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.LogChunk;
import dev.ax.domain.protocol.Poll;
import dev.ax.domain.protocol.Register;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.FailureKind;
import dev.ax.domain.run.RunState;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.DbConfig;
import dev.ax.store.LogStore;
import dev.ax.store.RunRow;
import dev.ax.store.SecretStore.SecretRow;
import dev.ax.store.Store;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Secrets on a real database: set and deleted with their events, checked when a task is saved, opened at the hand-off
 * only, masked in what executors report, sealed again by a rotation, refused with both key ids by a node with another key.
 */
abstract class SecretsContractTest {
    static final String PASSWORD = "hunter2-correct-horse";

    Store store;
    Keyring keyring;
    SchedulerNode node;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        keyring = Keyring.inMemory(MasterKey.random());
        node = TestNodes.node(store, "n1", keyring).start();
        node.dispatcher()
                .register(new Register(
                        "exec", UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
    }

    @AfterEach
    void close() {
        node.close();
        store.close();
    }

    static Map<String, Object> shellTask(String name, Map<String, String> env) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("taskName", name);
        json.put("trigger", event());
        json.put("action", Map.of("type", "shell", "command", "echo \"pw=$DB_PASSWORD\"", "env", env));
        return json;
    }

    List<WorkItem> poll() throws InterruptedException {
        return node.dispatcher().poll(new Poll("exec", List.of("default"), 10, 0));
    }

    RunRow instance(long id) {
        return store.tx(tx -> store.runs().find(tx, id)).orElseThrow();
    }

    /** A secret event as stored: who, on which task (none), with what message. */
    record Stored(String actor, Long taskId, String message) {}

    List<Stored> eventsOf(EventType type) {
        return store.tx(tx -> tx.query(
                "SELECT actor, task_id, message FROM ax_event WHERE type = ? ORDER BY id",
                r -> new Stored(r.str("actor"), r.nullableLong("task_id"), r.str("message")),
                type.name()));
    }

    /** Every text an event holds, joined: what must never show a value. */
    String everyEventText() {
        List<String> texts = store.tx(tx -> tx.query(
                "SELECT COALESCE(message, '') || ' ' || COALESCE(data, '') AS t FROM ax_event", r -> r.str("t")));
        return String.join("\n", texts);
    }

    @Test
    void a_set_is_created_then_updated_each_with_an_event_naming_the_actor_and_never_the_value() {
        Secrets.Saved created = node.secrets().set("db_password", PASSWORD, "alice");
        Secrets.Saved updated = node.secrets().set("db_password", PASSWORD + "-2", "bob");

        assertThat(created.created()).isTrue();
        assertThat(updated.created()).isFalse();
        assertThat(updated.secret().createdBy()).isEqualTo("alice");
        assertThat(updated.secret().updatedBy()).isEqualTo("bob");
        assertThat(updated.secret().keyId()).isEqualTo(keyring.current().id());
        assertThat(node.secrets().list()).extracting(Secrets.Info::name).containsExactly("db_password");
        assertThat(eventsOf(EventType.SECRET_CREATED)).singleElement().satisfies(e -> {
            assertThat(e.actor()).isEqualTo("alice");
            assertThat(e.taskId()).isNull();
            assertThat(e.message()).isEqualTo("secret db_password created");
        });
        assertThat(eventsOf(EventType.SECRET_UPDATED))
                .singleElement()
                .satisfies(e -> assertThat(e.actor()).isEqualTo("bob"));
        assertThat(everyEventText()).contains("db_password").doesNotContain("hunter2");
    }

    @Test
    void a_bad_name_or_value_is_refused_and_changes_nothing() {
        assertThatThrownBy(() -> node.secrets().set("no spaces", PASSWORD, "alice"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> node.secrets().set("short", "abc", "alice"))
                .isInstanceOfSatisfying(
                        ValidationException.class,
                        e -> assertThat(e.errors())
                                .singleElement()
                                .satisfies(f -> assertThat(f.reason()).contains("could not be masked")));
        assertThat(node.secrets().list()).isEmpty();
        assertThat(eventsOf(EventType.SECRET_CREATED)).isEmpty();
    }

    @Test
    void a_task_naming_a_secret_that_is_not_set_is_refused_on_that_field_on_every_way_of_saving() {
        Map<String, Object> json = shellTask("job", Map.of("DB_PASSWORD", "{{secret.db_password}}"));
        String reason = "secret db_password is not set; ax secret set db_password";

        assertRefused(() -> node.tasks().create(json, "alice"), new FieldError("action.env.DB_PASSWORD", reason));
        assertRefused(
                () -> node.testRuns().run("job", json, Map.of(), "alice"),
                new FieldError("action.env.DB_PASSWORD", reason));
        node.tasks().create(shellTask("job", Map.of()), "alice");
        assertRefused(
                () -> node.tasks().update("job", json, "alice"), new FieldError("action.env.DB_PASSWORD", reason));
        assertRefused(
                () -> node.canaries().start("job", json, new Canaries.Rollout(10, null, 20, 3), "alice"),
                new FieldError("action.env.DB_PASSWORD", reason));

        node.secrets().set("db_password", PASSWORD, "alice");
        assertThat(node.tasks().update("job", json, "alice").task().version()).isEqualTo(2);
    }

    private static void assertRefused(Runnable save, FieldError error) {
        assertThatThrownBy(save::run)
                .isInstanceOfSatisfying(
                        ValidationException.class, e -> assertThat(e.errors()).containsExactly(error));
    }

    @Test
    void a_secret_a_task_uses_is_not_deleted_and_the_answer_names_the_task() {
        node.secrets().set("db_password", PASSWORD, "alice");
        node.tasks().create(shellTask("nightly_dump", Map.of("DB_PASSWORD", "{{secret.db_password}}")), "alice");

        assertThatThrownBy(() -> node.secrets().delete("db_password", "bob"))
                .isInstanceOf(ConflictException.class)
                .hasMessageContaining("nightly_dump")
                .hasMessageContaining("{{secret.db_password}}");
        assertThat(node.secrets().list()).hasSize(1);

        node.tasks().update("nightly_dump", shellTask("nightly_dump", Map.of()), "alice");
        node.secrets().delete("db_password", "bob");
        assertThat(node.secrets().list()).isEmpty();
        assertThat(eventsOf(EventType.SECRET_DELETED))
                .singleElement()
                .satisfies(e -> assertThat(e.actor()).isEqualTo("bob"));
        assertThatThrownBy(() -> node.secrets().delete("db_password", "bob")).isInstanceOf(NotFoundException.class);
    }

    @Test
    void a_run_gets_the_value_at_its_hand_off_and_reports_come_back_masked() throws InterruptedException {
        node.secrets().set("db_password", PASSWORD, "alice");
        node.tasks().create(shellTask("job", Map.of("DB_PASSWORD", "{{secret.db_password}}")), "alice");
        long id = node.tasks().trigger("job", Map.of(), Cause.MANUAL, "alice");

        WorkItem item = poll().getFirst();
        assertThat(item.env()).containsEntry("DB_PASSWORD", PASSWORD);
        assertThat(item.masks()).containsExactly(PASSWORD);
        // An executor that does not mask (an old one, a service): the server masks what it stores.
        node.dispatcher().log(new LogChunk("exec", item.ref(), "stdout", List.of("pw=" + PASSWORD, "plain line")));
        node.dispatcher()
                .complete(new Completion(
                        "exec",
                        item.ref(),
                        false,
                        FailureKind.EXIT_CODE,
                        1,
                        "failed with " + PASSWORD,
                        List.of(new LogChunk("exec", item.ref(), "stderr", List.of("tail " + PASSWORD)))));

        List<LogStore.LogLine> log = store.tx(tx -> store.logs().read(tx, id, 0, 100));
        assertThat(log).extracting(LogStore.LogLine::text).containsExactly("pw=***\nplain line", "tail ***");
        assertThat(instance(id).message()).endsWith("failed with ***");
        assertThat(everyEventText()).contains("failed with ***").doesNotContain(PASSWORD);
        List<String> definitions =
                store.tx(tx -> tx.query("SELECT definition FROM ax_task_version", r -> r.str("definition")));
        String definition = definitions.getFirst();
        assertThat(definition).contains("{{secret.db_password}}").doesNotContain(PASSWORD);
    }

    @Test
    void what_an_operator_types_as_a_reason_is_masked_too() throws InterruptedException {
        node.secrets().set("api_token", "tok-4f1d2c", "alice");
        node.tasks().create(shellTask("job", Map.of()), "alice");
        long id = node.tasks().trigger("job", Map.of(), Cause.MANUAL, "alice");
        poll();

        node.runs().terminate(id, "bob", "leaked tok-4f1d2c, stopping");

        assertThat(instance(id).message()).isEqualTo("terminated by bob: leaked ***, stopping");
    }

    @Test
    void a_rotation_seals_every_secret_with_a_new_key_and_values_still_resolve() throws InterruptedException {
        node.secrets().set("db_password", PASSWORD, "alice");
        node.secrets().set("api_token", "tok-4f1d2c", "alice");
        MasterKey old = keyring.current();

        Secrets.Rotated rotated = node.secrets().rotateKey("admin");

        assertThat(rotated.previousKeyId()).isEqualTo(old.id());
        assertThat(rotated.keyId()).isEqualTo(keyring.current().id()).isNotEqualTo(old.id());
        assertThat(rotated.secrets()).isEqualTo(2);
        List<SecretRow> rows = store.tx(tx -> store.secrets().all(tx));
        assertThat(rows).hasSize(2).allSatisfy(r -> {
            assertThat(r.keyId()).isEqualTo(rotated.keyId());
            assertThatThrownBy(() -> SecretCipher.open(old, r.name(), r.sealed()))
                    .isInstanceOf(SecretCipher.WrongKeyException.class);
        });
        node.tasks().create(shellTask("job", Map.of("DB_PASSWORD", "{{secret.db_password}}")), "alice");
        node.tasks().trigger("job", Map.of(), Cause.MANUAL, "alice");
        assertThat(poll().getFirst().env()).containsEntry("DB_PASSWORD", PASSWORD);
        assertThat(eventsOf(EventType.SECRET_KEY_ROTATED)).singleElement().satisfies(e -> {
            assertThat(e.actor()).isEqualTo("admin");
            assertThat(e.message()).contains(rotated.keyId()).contains(old.id());
        });
    }

    @Test
    void a_node_started_with_the_previous_key_retired_seals_the_old_rows_again_once() {
        node.secrets().set("db_password", PASSWORD, "alice");
        MasterKey old = keyring.current();
        MasterKey next = MasterKey.random();
        AtomicInteger settled = new AtomicInteger();

        try (SchedulerNode again = TestNodes.node(store, "n2", keyringOf(next, old, settled))
                        .start();
                SchedulerNode third = TestNodes.node(store, "n3", keyringOf(next, old, settled))
                        .start()) {
            List<SecretRow> rows = store.tx(tx -> store.secrets().all(tx));
            assertThat(rows)
                    .singleElement()
                    .satisfies(r -> assertThat(r.keyId()).isEqualTo(next.id()));
            assertThat(again.secrets().mask().apply("x " + PASSWORD)).isEqualTo("x ***");
            assertThat(third.secrets().mask().apply("x " + PASSWORD)).isEqualTo("x ***");
        }
        assertThat(eventsOf(EventType.SECRET_KEY_ROTATED))
                .singleElement()
                .satisfies(e -> assertThat(e.actor()).isEqualTo("server"));
        assertThat(settled).as("each node saw every row under its key").hasValue(2);
    }

    @Test
    void a_node_with_another_key_fails_the_run_naming_both_key_ids_and_never_the_value() throws InterruptedException {
        node.secrets().set("db_password", PASSWORD, "alice");
        node.tasks().create(shellTask("job", Map.of("DB_PASSWORD", "{{secret.db_password}}")), "alice");
        MasterKey other = MasterKey.random();

        try (SchedulerNode stranger =
                TestNodes.node(store, "stranger", Keyring.inMemory(other)).start()) {
            stranger.dispatcher()
                    .register(new Register(
                            "exec2", UUID.randomUUID().toString(), List.of("default"), "test", 1, "test", List.of()));
            long id = stranger.tasks().trigger("job", Map.of(), Cause.MANUAL, "alice");

            assertThat(stranger.dispatcher().poll(new Poll("exec2", List.of("default"), 10, 0)))
                    .isEmpty();

            RunRow run = instance(id);
            assertThat(run.state()).isEqualTo(RunState.FAILED);
            assertThat(run.failureKind()).isEqualTo(FailureKind.START_ERROR);
            assertThat(run.message())
                    .contains(keyring.current().id())
                    .contains(other.id())
                    .contains("every node needs the same AX_SECRET_KEY")
                    .doesNotContain(PASSWORD);
        }
    }

    static Keyring keyringOf(MasterKey current, MasterKey retired, AtomicInteger settled) {
        return new Keyring() {
            @Override
            public MasterKey current() {
                return current;
            }

            @Override
            public List<MasterKey> retired() {
                return List.of(retired);
            }

            @Override
            public MasterKey rotate() {
                throw new ConflictException("not in this test");
            }

            @Override
            public void settled() {
                settled.incrementAndGet();
            }

            @Override
            public String source() {
                return "test keys";
            }
        };
    }
}
