package dev.ax.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.domain.protocol.RunRef;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/** Run output partitioned by day on PostgreSQL (V41–V43, {@link HistoryPartitions}). */
class PostgresLogPartitionsTest {
    static final int RUNS = 1_000_000;

    static Flyway flyway(DbConfig config, String target) {
        return Flyway.configure()
                .dataSource(config.url(), config.user(), config.password())
                .locations(Dialect.POSTGRES.migrationLocation())
                .table("ax_schema_history")
                .target(target)
                .load();
    }

    static long one(Statement s, String sql) throws SQLException {
        try (var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void a_database_holding_a_million_runs_moves_its_output_into_partitions_without_reading_it_under_a_lock()
            throws Exception {
        DbConfig config = TestDatabases.postgres();
        flyway(config, "40").migrate();
        try (Connection c = DriverManager.getConnection(config.url());
                Statement s = c.createStatement()) {
            s.execute("INSERT INTO ax_instance (task_id, task_name, task_version, cause, fire_key, scheduled_at, state,"
                    + " attempt, max_attempts, executor_group, ready_at, actor, node_id, created_at, updated_at, finished_at)"
                    + " SELECT g % 1000 + 1, 'task-' || (g % 1000), 1, 'CRON', 'slot-' || g, t, 'SUCCESS', 1, 1, 'default',"
                    + " t, 'ax', 'n1', t, t, t FROM generate_series(1, " + RUNS + ") g,"
                    + " LATERAL (SELECT now() - make_interval(secs => " + RUNS + " - g) AS t) x");
            s.execute("INSERT INTO ax_log (instance_id, attempt, stream, at, text)"
                    + " SELECT id, 1, 'stdout', created_at, 'output of ' || id FROM ax_instance");

            flyway(config, "41").migrate();
            assertThat(one(
                            s,
                            "SELECT COUNT(*) FROM pg_constraint WHERE conname = 'ax_log_before_cutover'"
                                    + " AND NOT convalidated"))
                    .as("V41 only promises: the constraint is not checked against a row yet")
                    .isEqualTo(1);
            flyway(config, "42").migrate();
            assertThat(one(
                            s,
                            "SELECT COUNT(*) FROM pg_constraint WHERE conname = 'ax_log_before_cutover'"
                                    + " AND convalidated"))
                    .as("V42 proved it, so that V43's ATTACH reads nothing")
                    .isEqualTo(1);
            flyway(config, "latest").migrate();

            assertThat(one(s, "SELECT COUNT(*) FROM pg_partitioned_table WHERE partrelid = 'ax_log'::regclass"))
                    .isEqualTo(1);
            assertThat(one(s, "SELECT COUNT(*) FROM ax_log")).isEqualTo(RUNS);
            assertThat(one(s, "SELECT COUNT(*) FROM ax_log_legacy")).isEqualTo(RUNS);
            assertThat(one(
                            s,
                            "SELECT COUNT(*) FROM pg_depend d JOIN pg_class q ON q.oid = d.objid"
                                    + " WHERE q.relname = 'ax_log_id_seq' AND d.refobjid = 'ax_log'::regclass"))
                    .as("the id sequence belongs to the parent, not to the first partition")
                    .isEqualTo(1);
            // Flyway's own record of how long each step took, for the docs.
            try (var rs = s.executeQuery("SELECT version, execution_time FROM ax_schema_history"
                    + " WHERE version IN ('41', '42', '43') ORDER BY installed_rank")) {
                while (rs.next()) {
                    System.out.printf("V%s on %,d runs and chunks: %d ms%n", rs.getString(1), RUNS, rs.getLong(2));
                }
            }
        }

        try (Store store = Store.open(config)) {
            List<HistoryPartitions.Partition> parts =
                    store.tx(tx -> store.partitions().list(tx));
            assertThat(parts.getFirst().name()).isEqualTo("ax_log_legacy");
            assertThat(parts.getFirst().from()).isNull();
            assertThat(parts).hasSize(9);
            long newest = store.tx(tx -> tx.queryOne("SELECT MAX(id) AS m FROM ax_instance", r -> r.lng("m")))
                    .orElseThrow();
            List<LogStore.LogLine> before = store.tx(tx -> store.logs().read(tx, newest, 0, 10));
            assertThat(before).extracting(LogStore.LogLine::text).containsExactly("output of " + newest);
            store.tx(tx -> {
                store.logs().append(tx, new RunRef(newest, 1), "stdout", List.of("after"));
                return null;
            });
            List<LogStore.LogLine> after = store.tx(tx -> store.logs().read(tx, newest, 0, 10));
            assertThat(after).extracting(LogStore.LogLine::text).containsExactly("output of " + newest, "after");
        }
    }

    @Test
    void a_fresh_database_has_its_first_partition_and_a_week_of_days_each_made_once() throws Exception {
        DbConfig config = TestDatabases.postgres();
        try (Store store = Store.open(config)) {
            HistoryPartitions partitions = store.partitions();
            List<HistoryPartitions.Partition> parts = store.tx(partitions::list);
            assertThat(parts).hasSize(9);
            LocalDate today = LocalDate.ofInstant(store.tx(Tx::now), ZoneOffset.UTC);
            Instant cutover = today.plusDays(2).atStartOfDay(ZoneOffset.UTC).toInstant();
            assertThat(parts.getFirst().to()).isEqualTo(cutover);
            assertThat(parts.get(1).name())
                    .isEqualTo("ax_log_" + today.plusDays(2).toString().replace("-", ""));

            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Callable<Integer> make = () -> store.tx(tx -> partitions.makeAhead(tx, 20));
                int made = 0;
                for (Future<Integer> f : pool.invokeAll(List.of(make, make))) {
                    made += f.get();
                }
                assertThat(made)
                        .as("the 10th to the 20th day after today, each by one of the two")
                        .isEqualTo(11);
            } finally {
                pool.shutdownNow();
            }
            parts = store.tx(partitions::list);
            for (int i = 1; i < parts.size(); i++) {
                assertThat(parts.get(i).from())
                        .as("no gap, no overlap")
                        .isEqualTo(parts.get(i - 1).to());
            }
            int again = store.tx(tx -> partitions.makeAhead(tx, 20));
            assertThat(again).isZero();
        }
    }

    @Test
    void a_partition_is_dropped_by_one_of_two_nodes_at_once() throws Exception {
        DbConfig config = TestDatabases.postgres();
        try (Store store = Store.open(config)) {
            HistoryPartitions partitions = store.partitions();
            String last = store.tx(partitions::list).getLast().name();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Callable<Boolean> drop = () -> partitions.drop(last);
                int dropped = 0;
                for (Future<Boolean> f : pool.invokeAll(List.of(drop, drop))) {
                    dropped += f.get() ? 1 : 0;
                }
                assertThat(dropped).isEqualTo(1);
            } finally {
                pool.shutdownNow();
            }
            assertThat(store.tx(partitions::list))
                    .extracting(HistoryPartitions.Partition::name)
                    .doesNotContain(last);
            Optional<HistoryPartitions.Contents> gone = store.tx(tx -> partitions.contents(tx, last, Instant.now()));
            assertThat(gone).isEmpty();

            // A node stopped between the detach and the drop leaves a day's table that is no partition: the next
            // drop finishes it.
            String left = store.tx(partitions::list).getLast().name();
            store.tx(tx -> tx.update("ALTER TABLE ax_log DETACH PARTITION " + left));
            String next = store.tx(partitions::list).getLast().name();
            assertThat(partitions.drop(next)).isTrue();
            long tables = store.tx(tx -> tx.queryOne(
                            "SELECT COUNT(*) AS n FROM pg_class WHERE relname IN (?, ?)", r -> r.lng("n"), left, next))
                    .orElseThrow();
            assertThat(tables).isZero();
        }
    }
}
