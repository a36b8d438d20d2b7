package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.store.SecretStore.Sealed;
import dev.ax.store.SecretStore.SecretRow;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sealed secrets in the database: conditional writes, the generation every change bumps, the tasks that mention them. */
abstract class SecretStoreContractTest {
    static final Sealed ONE = new Sealed(new byte[] {1, 2, 3, 4, 5}, new byte[12], "00112233aabbccdd");
    static final Sealed TWO =
            new Sealed(new byte[] {9, 8, 7}, new byte[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, "ffeeddccbbaa9988");

    Store store;
    SecretStore secrets;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
        secrets = store.secrets();
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** {@code store.tx} of a yes-or-no write, typed for assertThat (whose overloads would otherwise blur the lambda's type). */
    boolean did(Database.TxWork<Boolean> work) {
        return store.tx(work);
    }

    @Test
    void an_insert_takes_a_free_name_only_and_keeps_the_bytes_as_they_are() {
        assertThat(did(tx -> secrets.insert(tx, "db_password", ONE, "alice"))).isTrue();
        assertThat(did(tx -> secrets.insert(tx, "db_password", TWO, "bob"))).isFalse();

        SecretRow row = store.tx(tx -> secrets.find(tx, "db_password")).orElseThrow();
        assertThat(row.sealed().ciphertext()).containsExactly(1, 2, 3, 4, 5);
        assertThat(row.sealed().nonce()).hasSize(12);
        assertThat(row.keyId()).isEqualTo("00112233aabbccdd");
        assertThat(row.createdBy()).isEqualTo("alice");
        assertThat(row.updatedBy()).isEqualTo("alice");
        assertThat(row.createdAt()).isNotNull();
    }

    @Test
    void an_update_changes_an_existing_secret_and_keeps_who_created_it() {
        assertThat(did(tx -> secrets.update(tx, "nope", TWO, "bob"))).isFalse();
        store.tx(tx -> secrets.insert(tx, "token", ONE, "alice"));

        assertThat(did(tx -> secrets.update(tx, "token", TWO, "bob"))).isTrue();

        SecretRow row = store.tx(tx -> secrets.find(tx, "token")).orElseThrow();
        assertThat(row.sealed().ciphertext()).containsExactly(9, 8, 7);
        assertThat(row.keyId()).isEqualTo("ffeeddccbbaa9988");
        assertThat(row.createdBy()).isEqualTo("alice");
        assertThat(row.updatedBy()).isEqualTo("bob");
    }

    @Test
    void a_reseal_applies_only_to_a_row_still_under_the_old_key() {
        store.tx(tx -> secrets.insert(tx, "token", ONE, "alice"));

        assertThat(did(tx -> secrets.reseal(tx, "token", "ffeeddccbbaa9988", TWO)))
                .isFalse();
        assertThat(did(tx -> secrets.reseal(tx, "token", ONE.keyId(), TWO))).isTrue();
        assertThat(did(tx -> secrets.reseal(tx, "token", ONE.keyId(), TWO))).isFalse();

        SecretRow row = store.tx(tx -> secrets.find(tx, "token")).orElseThrow();
        assertThat(row.keyId()).isEqualTo(TWO.keyId());
        assertThat(row.updatedBy()).isEqualTo("alice");
    }

    @Test
    void a_delete_says_whether_there_was_a_secret() {
        store.tx(tx -> secrets.insert(tx, "token", ONE, "alice"));

        assertThat(did(tx -> secrets.delete(tx, "token"))).isTrue();
        assertThat(did(tx -> secrets.delete(tx, "token"))).isFalse();
        assertThat(store.tx(tx -> secrets.find(tx, "token")).isPresent()).isFalse();
    }

    @Test
    void the_generation_moves_with_each_bump_under_its_lock() {
        long before = store.tx(secrets::generation);

        store.tx(tx -> {
            assertThat(secrets.lockGeneration(tx)).isEqualTo(before);
            secrets.bumpGeneration(tx);
            return null;
        });

        long after = store.tx(secrets::generation);
        assertThat(after).isEqualTo(before + 1);
    }

    @Test
    void finds_and_holds_only_the_names_that_exist() {
        store.tx(tx -> secrets.insert(tx, "a_secret", ONE, "alice"));
        store.tx(tx -> secrets.insert(tx, "b_secret", TWO, "alice"));

        List<SecretRow> found = store.tx(tx -> secrets.find(tx, List.of("b_secret", "missing")));
        List<String> held = store.tx(tx -> secrets.holdNames(tx, List.of("missing", "b_secret", "a_secret")));
        List<SecretRow> all = store.tx(secrets::all);

        assertThat(found).extracting(SecretRow::name).containsExactly("b_secret");
        assertThat(held).containsExactly("a_secret", "b_secret");
        assertThat(all).extracting(SecretRow::name).containsExactly("a_secret", "b_secret");
    }

    @Test
    void lists_the_current_and_canary_definitions_that_mention_secrets() {
        var plain = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "plain",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true")),
                        Set.of())
                .definition();
        var using = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "using",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true", "env", Map.of("PW", "{{secret.pw}}"))),
                        Set.of())
                .definition();
        var canary = TaskDefinitionCodec.parse(
                        Map.of(
                                "taskName",
                                "plain",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "true", "env", Map.of("TOKEN", "{{secret.token}}"))),
                        Set.of())
                .definition();
        store.tx(tx -> {
            TaskRow p = store.tasks().insert(tx, plain, null, "t");
            store.tasks().insert(tx, using, null, "t");
            int version = store.tasks().appendCanary(tx, p, canary, "t");
            store.canaries().insert(tx, p.id(), p.name(), p.version(), version, 10, null, 20, 3, "t");
            return null;
        });

        List<SecretStore.TaskUsing> mentioning = store.tx(secrets::definitionsMentioningSecrets);

        assertThat(mentioning)
                .extracting(SecretStore.TaskUsing::taskName, u -> u.definition().action())
                .containsExactlyInAnyOrder(tuple("using", using.action()), tuple("plain", canary.action()));
    }
}
