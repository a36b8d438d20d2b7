package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ax.store.DbConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One contract for {@link IdempotencyStore}, run on every database it ships a migration for. */
abstract class IdempotencyStoreContractTest {

    HikariDataSource db;
    IdempotencyStore store;

    abstract DbConfig database();

    /** Whether {@code thread} waits for a lock held by another transaction of this database. */
    abstract boolean waitsForALock(Thread thread) throws SQLException;

    @BeforeEach
    void createTables() throws SQLException {
        DbConfig cfg = database();
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(cfg.url());
        if (cfg.user() != null) {
            hc.setUsername(cfg.user());
            hc.setPassword(cfg.password());
        }
        hc.setMaximumPoolSize(4);
        db = new HikariDataSource(hc);
        store = new IdempotencyStore(db);
        store.createTable();
        store.createTable(); // idempotent itself: an app may run it at every start
        execute("CREATE TABLE shipments (request_id VARCHAR(200), note VARCHAR(100))");
    }

    @AfterEach
    void close() {
        db.close();
    }

    @Test
    void runs_the_work_and_records_its_result_in_the_same_transaction() throws Exception {
        String result = store.runOnce("ax-1", tx -> insertShipment(tx, "ax-1", "first"));

        assertThat(result).isEqualTo("shipped first");
        assertThat(shipments()).isEqualTo(1);
        IdempotencyStore.Recorded recorded = store.find("ax-1").orElseThrow();
        assertThat(recorded.result()).isEqualTo("shipped first");
        assertThat(recorded.createdAt()).isNotNull();
    }

    @Test
    void a_second_run_with_the_same_request_id_returns_the_recorded_result_without_running() throws Exception {
        store.runOnce("ax-2", tx -> insertShipment(tx, "ax-2", "first"));
        AtomicInteger ranAgain = new AtomicInteger();

        IdempotencyStore.Once again = store.once("ax-2", tx -> {
            ranAgain.incrementAndGet();
            return insertShipment(tx, "ax-2", "second");
        });

        assertThat(again.result()).isEqualTo("shipped first");
        assertThat(again.replayed()).isTrue();
        assertThat(ranAgain).hasValue(0);
        assertThat(shipments()).isEqualTo(1);
    }

    @Test
    void work_that_throws_rolls_back_with_its_record_so_the_next_attempt_runs() throws Exception {
        assertThatThrownBy(() -> store.runOnce("ax-3", tx -> {
                    insertShipment(tx, "ax-3", "half");
                    throw new IllegalStateException("carrier down");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("carrier down");
        assertThat(shipments()).isZero();
        assertThat(store.find("ax-3")).isEmpty();

        assertThat(store.runOnce("ax-3", tx -> insertShipment(tx, "ax-3", "retry")))
                .isEqualTo("shipped retry");
        assertThat(shipments()).isEqualTo(1);
    }

    @Test
    void a_null_result_is_recorded_and_replayed_as_null() throws Exception {
        assertThat(store.runOnce("ax-4", tx -> null)).isNull();
        IdempotencyStore.Once again = store.once("ax-4", tx -> "not this");
        assertThat(again.replayed()).isTrue();
        assertThat(again.result()).isNull();
    }

    @Test
    void different_request_ids_are_independent() throws Exception {
        store.runOnce("billing:2024-05-01", tx -> insertShipment(tx, "a", "one"));
        store.runOnce("billing:2024-05-02", tx -> insertShipment(tx, "b", "two"));
        assertThat(shipments()).isEqualTo(2);
    }

    @Test
    void refuses_a_blank_or_too_long_request_id() {
        assertThatThrownBy(() -> store.runOnce(" ", tx -> "x")).hasMessage("requestId is required");
        assertThatThrownBy(() -> store.runOnce("k".repeat(201), tx -> "x"))
                .hasMessageStartingWith("requestId is longer than 200");
    }

    /**
     * Two attempts of the same request overlap (a re-delivery while a stuck attempt still runs): the second
     * waits on the first's key, then replays its result. The work runs once.
     */
    @Test
    void overlapping_attempts_with_the_same_request_id_do_the_work_once() throws Exception {
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch letFirstCommit = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        Thread.ofPlatform()
                .name("first")
                .start(() -> complete(
                        first,
                        () -> store.runOnce("ax-5", tx -> {
                            runs.incrementAndGet();
                            firstInside.countDown();
                            letFirstCommit.await(10, TimeUnit.SECONDS);
                            return insertShipment(tx, "ax-5", "first");
                        })));
        assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();
        Thread secondThread = Thread.ofPlatform()
                .name("second")
                .start(() -> complete(
                        second,
                        () -> store.runOnce("ax-5", tx -> {
                            runs.incrementAndGet();
                            return insertShipment(tx, "ax-5", "second");
                        })));
        await().atMost(Duration.ofSeconds(10)).until(() -> waitsForALock(secondThread)); // on the first's key
        letFirstCommit.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("shipped first");
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("shipped first");
        assertThat(runs).hasValue(1);
        assertThat(shipments()).isEqualTo(1);
    }

    private static void complete(CompletableFuture<String> future, Callable<String> call) {
        try {
            future.complete(call.call());
        } catch (Throwable t) {
            future.completeExceptionally(t);
        }
    }

    static String insertShipment(Connection tx, String requestId, String note) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO shipments (request_id, note) VALUES (?, ?)")) {
            ps.setString(1, requestId);
            ps.setString(2, note);
            ps.executeUpdate();
        }
        return "shipped " + note;
    }

    int shipments() throws SQLException {
        return count("SELECT count(*) FROM shipments");
    }

    int count(String query) throws SQLException {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    void execute(String sql) throws SQLException {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
