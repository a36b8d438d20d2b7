package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Role;
import dev.ax.store.AuditStore.AuditRow;
import dev.ax.store.AuditStore.Entry;
import dev.ax.store.AuditStore.Filter;
import dev.ax.store.TokenStore.TokenRow;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Tokens, teams, the audit log and console sessions in the database: unique names, revocation, filters, one use. */
abstract class AccessStoreContractTest {
    Store store;

    abstract DbConfig config();

    @BeforeEach
    void open() {
        store = Store.open(config());
    }

    @AfterEach
    void close() {
        store.close();
    }

    boolean did(Database.TxWork<Boolean> work) {
        return store.tx(work);
    }

    <T> Optional<T> one(Database.TxWork<Optional<T>> work) {
        return store.tx(work);
    }

    <T> List<T> many(Database.TxWork<List<T>> work) {
        return store.tx(work);
    }

    int count(Database.TxWork<Integer> work) {
        return store.tx(work);
    }

    @Test
    void a_token_keeps_its_grants_owner_and_expiry_and_a_name_is_taken_once() {
        Grants grants = new Grants(Role.VIEWER, Map.of("data", Role.OPERATOR, "web", Role.ADMIN), List.of());
        Instant expires = Instant.parse("2030-01-01T00:00:00Z");
        assertThat(did(tx -> store.tokens().create(tx, "alice-ci", "alice", "t-1", grants, expires, "admin")))
                .isTrue();
        assertThat(did(tx -> store.tokens().create(tx, "alice-ci", "bob", "t-2", Grants.of(Role.ADMIN), null, "admin")))
                .isFalse();

        TokenRow row = store.tx(tx -> store.tokens().find(tx, "t-1")).orElseThrow();
        assertThat(row.name()).isEqualTo("alice-ci");
        assertThat(row.owner()).isEqualTo("alice");
        assertThat(row.grants()).isEqualTo(grants);
        assertThat(row.expiresAt()).isEqualTo(expires);
        assertThat(row.createdBy()).isEqualTo("admin");
        assertThat(row.expiredAt(expires)).isTrue();
        assertThat(row.expiredAt(expires.minusSeconds(1))).isFalse();
        assertThat(one(tx -> store.tokens().find(tx, "t-2"))).isEmpty();
    }

    @Test
    void an_executor_token_keeps_its_groups() {
        store.tx(tx -> store.tokens()
                .create(
                        tx,
                        "exec-orders",
                        "exec-orders",
                        "e-1",
                        new Grants(Role.EXECUTOR, Map.of(), List.of("orders", "billing")),
                        null,
                        "admin"));
        assertThat(one(tx -> store.tokens().find(tx, "e-1"))
                        .orElseThrow()
                        .grants()
                        .groups())
                .containsExactly("orders", "billing");
    }

    @Test
    void a_revoked_token_is_gone_and_its_hash_says_who_revoked_it() {
        store.tx(tx -> store.tokens().create(tx, "bob", "bob", "b-1", Grants.of(Role.OPERATOR), null, "admin"));

        assertThat(one(tx -> store.tokens().revoke(tx, "bob", "root"))).isPresent();
        assertThat(one(tx -> store.tokens().revoke(tx, "bob", "root"))).isEmpty();

        assertThat(one(tx -> store.tokens().find(tx, "b-1"))).isEmpty();
        TokenStore.RevokedRow revoked =
                store.tx(tx -> store.tokens().revoked(tx, "b-1")).orElseThrow();
        assertThat(revoked.name()).isEqualTo("bob");
        assertThat(revoked.revokedBy()).isEqualTo("root");
        // The name is free again, for a new token.
        assertThat(did(tx -> store.tokens().create(tx, "bob", "bob", "b-2", Grants.of(Role.VIEWER), null, "admin")))
                .isTrue();
    }

    @Test
    void tokens_list_by_name_or_by_owner_and_say_which_grant_a_team() {
        store.tx(tx -> store.tokens()
                .create(
                        tx,
                        "b",
                        "alice",
                        "x-1",
                        new Grants(Role.VIEWER, Map.of("data", Role.ADMIN), List.of()),
                        null,
                        "a"));
        store.tx(tx -> store.tokens().create(tx, "a", "alice", "x-2", Grants.of(Role.VIEWER), null, "a"));
        store.tx(tx -> store.tokens()
                .create(
                        tx,
                        "c",
                        "carol",
                        "x-3",
                        new Grants(Role.VIEWER, Map.of("web", Role.ADMIN), List.of()),
                        null,
                        "a"));

        assertThat(many(tx -> store.tokens().list(tx, null)))
                .extracting(TokenRow::name)
                .containsExactly("a", "b", "c");
        assertThat(many(tx -> store.tokens().list(tx, "alice")))
                .extracting(TokenRow::name)
                .containsExactly("a", "b");
        assertThat(many(tx -> store.tokens().grantingIn(tx, "data"))).containsExactly("b");
    }

    @Test
    void last_used_is_noted_at_most_once_per_period() {
        store.tx(tx -> store.tokens().create(tx, "t", "t", "t-1", Grants.of(Role.VIEWER), null, "a"));
        long id = store.tx(tx -> store.tokens().find(tx, "t-1")).orElseThrow().id();
        assertThat(one(tx -> store.tokens().find(tx, "t-1")).orElseThrow().lastUsedAt())
                .isNull();

        store.tx(tx -> {
            store.tokens().touch(tx, id, 60_000);
            return null;
        });
        Instant first =
                store.tx(tx -> store.tokens().find(tx, "t-1")).orElseThrow().lastUsedAt();
        store.tx(tx -> {
            store.tokens().touch(tx, id, 60_000);
            return null;
        });

        assertThat(first).isNotNull();
        assertThat(one(tx -> store.tokens().find(tx, "t-1")).orElseThrow().lastUsedAt())
                .isEqualTo(first);
    }

    @Test
    void teams_are_unique_and_know_their_tasks() {
        assertThat(did(tx -> store.teams().create(tx, "data", "the data team", "admin")))
                .isTrue();
        assertThat(did(tx -> store.teams().create(tx, "data", "again", "admin")))
                .isFalse();
        assertThat(one(tx -> store.teams().find(tx, "data")).orElseThrow().description())
                .isEqualTo("the data team");
        assertThat(many(tx -> store.teams().tasksOf(tx, "data"))).isEmpty();
        assertThat(did(tx -> store.teams().delete(tx, "data"))).isTrue();
        assertThat(many(tx -> store.teams().all(tx))).isEmpty();
    }

    @Test
    void the_audit_log_lists_newest_first_by_actor_team_target_and_time() {
        store.tx(tx -> {
            store.audit()
                    .add(
                            tx,
                            List.of(
                                    new Entry(
                                            "alice",
                                            "token:alice",
                                            "data",
                                            "10.0.0.1",
                                            "task.pause",
                                            "task:sync",
                                            "ok",
                                            200,
                                            null,
                                            null),
                                    new Entry(
                                            "bob",
                                            "sso",
                                            "finance",
                                            "10.0.0.2",
                                            "task.update",
                                            "task:ledger",
                                            "ok",
                                            200,
                                            null,
                                            "[{\"path\":\"x\"}]"),
                                    new Entry(
                                            "alice",
                                            "token:alice",
                                            "finance",
                                            "10.0.0.1",
                                            "run.terminate",
                                            "run:7",
                                            "refused",
                                            403,
                                            "needs operator",
                                            null)));
            return null;
        });
        Filter all = new Filter(null, null, null, null, null, Long.MAX_VALUE, 10);

        List<AuditRow> rows = store.tx(tx -> store.audit().list(tx, all));
        assertThat(rows)
                .extracting(r -> r.entry().action())
                .containsExactly("run.terminate", "task.update", "task.pause");
        assertThat(rows.get(1).entry().diff()).isEqualTo("[{\"path\":\"x\"}]");
        assertThat(rows.getFirst().at()).isNotNull();

        assertThat(many(tx -> store.audit().list(tx, new Filter("alice", null, null, null, null, Long.MAX_VALUE, 10))))
                .extracting(r -> r.entry().action())
                .containsExactly("run.terminate", "task.pause");
        assertThat(many(tx ->
                        store.audit().list(tx, new Filter(null, "finance", null, null, null, Long.MAX_VALUE, 10))))
                .extracting(r -> r.entry().action())
                .containsExactly("run.terminate", "task.update");
        assertThat(many(tx -> store.audit().list(tx, new Filter(null, null, "task:", null, null, Long.MAX_VALUE, 10))))
                .extracting(r -> r.entry().target())
                .containsExactly("task:ledger", "task:sync");
        assertThat(many(tx ->
                        store.audit().list(tx, new Filter(null, null, "task:sync", null, null, Long.MAX_VALUE, 10))))
                .hasSize(1);
        assertThat(many(tx -> store.audit()
                        .list(
                                tx,
                                new Filter(
                                        null,
                                        null,
                                        null,
                                        null,
                                        null,
                                        rows.get(1).id(),
                                        10))))
                .extracting(r -> r.entry().action())
                .containsExactly("task.pause");
        Instant at = rows.getFirst().at();
        assertThat(many(tx -> store.audit()
                        .list(tx, new Filter(null, null, null, at.plusSeconds(1), null, Long.MAX_VALUE, 10))))
                .isEmpty();
        assertThat(many(tx -> store.audit()
                        .list(tx, new Filter(null, null, null, null, at.plusSeconds(1), Long.MAX_VALUE, 2))))
                .hasSize(2);
    }

    @Test
    void a_sign_in_under_way_is_taken_once_and_a_session_ends_when_deleted() {
        store.tx(tx -> {
            store.sessions().begin(tx, "state-1", "verifier", "nonce", "/tasks");
            return null;
        });
        assertThat(one(tx -> store.sessions().take(tx, "state-1", 600_000))).hasValueSatisfying(p -> {
            assertThat(p.verifier()).isEqualTo("verifier");
            assertThat(p.nextPath()).isEqualTo("/tasks");
        });
        assertThat(one(tx -> store.sessions().take(tx, "state-1", 600_000))).isEmpty();

        store.tx(tx -> {
            store.sessions().create(tx, "session-id", "alice", "{\"role\":\"viewer\"}", 3_600_000);
            return null;
        });
        assertThat(one(tx -> store.sessions().find(tx, "session-id")))
                .hasValueSatisfying(s -> assertThat(s.person()).isEqualTo("alice"));
        assertThat(one(tx -> store.sessions().find(tx, "other"))).isEmpty();
        assertThat(count(tx -> store.sessions().deleteOf(tx, "alice"))).isEqualTo(1);
        assertThat(one(tx -> store.sessions().find(tx, "session-id"))).isEmpty();
    }

    @Test
    void an_expired_session_is_not_found() {
        store.tx(tx -> {
            store.sessions().create(tx, "gone", "alice", "{}", -1);
            return null;
        });
        assertThat(one(tx -> store.sessions().find(tx, "gone"))).isEmpty();
        assertThat(count(tx -> store.sessions().expire(tx, 600_000))).isEqualTo(1);
    }
}
