package dev.ax.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * What this machine can do without any scheduler: the physical limits BENCHMARKS.md quotes for the reference box
 * its bar was set on (single-row commits, batched inserts into a run-shaped table, process
 * spawns), measured here the same way and printed next to the reference box's figures. The bar's goals
 * are absolute (10,000 runs/s, 5,000 HTTP runs/s); this table says how fast the box was on the
 * day, so a figure from a slow day is read as such. It changes no goal and no "met".
 */
@Command(
        name = "box",
        description =
                "This machine's physical limits (PostgreSQL commits and batched inserts, process spawns) next to the reference box's")
final class BoxCommand implements Callable<Integer> {
    private static final String DB = "ax_bench_box";
    private static final int ACCOUNTS = 100_000;
    private static final int BATCH = 100;

    @Mixin
    BenchOptions opts = new BenchOptions();

    @Override
    public Integer call() {
        W1Command.Outcome o = run();
        System.out.println(o.table().render());
        return 0;
    }

    /** One measurement: what, the figure here, the reference box's figure, and the unit. */
    private record Limit(String what, double here, double benchMd, String unit) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("what", what);
            m.put("perSecond", W1Stats.round(here));
            m.put("benchMdPerSecond", benchMd);
            m.put("unit", unit);
            return m;
        }
    }

    W1Command.Outcome run() {
        Pg pg = opts.pg();
        int secs = opts.quick ? 3 : 5;
        opts.awaitQuiet();
        System.err.println("box: PostgreSQL and spawn limits, " + secs + " s each ...");
        pg.recreate(DB);
        List<Limit> limits = new ArrayList<>();
        try (HikariDataSource ds = pg.pool(DB, 16, true, "box")) {
            setUp(ds);
            limits.add(new Limit(
                    "single-row UPDATE, 1 client", commits(ds, 1, secs, BoxCommand::update), 2_260, "commits/s"));
            limits.add(new Limit(
                    "single-row UPDATE, 16 clients", commits(ds, 16, secs, BoxCommand::update), 6_890, "commits/s"));
            limits.add(new Limit(
                    "single-row INSERT, 16 clients", commits(ds, 16, secs, BoxCommand::insert), 10_460, "commits/s"));
            limits.add(new Limit(
                    "100-row INSERTs into an instance-shaped table, 1 client",
                    BATCH * commits(ds, 1, secs, BoxCommand::batch),
                    51_600,
                    "rows/s"));
            limits.add(new Limit(
                    "100-row INSERTs into an instance-shaped table, 4 clients",
                    BATCH * commits(ds, 4, secs, BoxCommand::batch),
                    77_000,
                    "rows/s"));
        } finally {
            pg.drop(DB);
        }
        limits.add(new Limit("bash loop of /bin/true, 1 process", ShellCommand.bashLoop(secs), 800, "spawns/s"));

        Table t = new Table(
                "This box's limits, " + secs + " s each, next to the box the bar was set on",
                "what",
                "here",
                "reference box",
                "here / reference");
        List<Map<String, Object>> results = new ArrayList<>();
        for (Limit l : limits) {
            t.row(
                    l.what() + " (" + l.unit() + ")",
                    Table.num(l.here()),
                    Table.num(l.benchMd()),
                    Table.ratio(l.here(), l.benchMd()));
            results.add(l.toMap());
        }
        t.note(
                "Autocommit statements through JDBC (prepared, one per commit) on the same PostgreSQL the workloads use; the"
                        + " instance-shaped table has a bigserial key, a unique (task_id, fire_key) and an index on (state, id).");
        t.note(
                "The goals stay absolute: a box slower than the reference makes them harder to meet, and the ratios to Quartz and"
                        + " db-scheduler (measured in the same run) are what compares systems.");
        System.err.println("results: " + Results.write(opts.resultsDir, "box", opts.toMap(), results, t.render(), pg));
        return new W1Command.Outcome(t, List.of(), results);
    }

    private static void setUp(HikariDataSource ds) {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE box_account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
            s.execute("INSERT INTO box_account SELECT g, 0 FROM generate_series(1, " + ACCOUNTS + ") g");
            s.execute("CREATE TABLE box_history (account INT NOT NULL, delta INT NOT NULL, at TIMESTAMPTZ NOT NULL)");
            s.execute(
                    "CREATE TABLE box_instance (id BIGSERIAL PRIMARY KEY, task_id BIGINT NOT NULL, fire_key VARCHAR(200) NOT NULL,"
                            + " state VARCHAR(30) NOT NULL, scheduled_at TIMESTAMPTZ NOT NULL, created_at TIMESTAMPTZ NOT NULL,"
                            + " UNIQUE (task_id, fire_key))");
            s.execute("CREATE INDEX box_instance_state ON box_instance (state, id)");
            s.execute("VACUUM ANALYZE box_account");
        } catch (SQLException e) {
            throw new IllegalStateException("box: setting up " + DB + ": " + e.getMessage(), e);
        }
    }

    /** One commit's worth of work on a connection of its own. */
    private interface Work {
        void once(Connection c, long n) throws SQLException;
    }

    private static void update(Connection c, long n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE box_account SET balance = balance + 1 WHERE id = ?")) {
            ps.setInt(1, 1 + ThreadLocalRandom.current().nextInt(ACCOUNTS));
            ps.executeUpdate();
        }
    }

    private static void insert(Connection c, long n) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO box_history (account, delta, at) VALUES (?, 1, CURRENT_TIMESTAMP)")) {
            ps.setInt(1, 1 + ThreadLocalRandom.current().nextInt(ACCOUNTS));
            ps.executeUpdate();
        }
    }

    private static final String BATCH_INSERT;

    static {
        StringBuilder sql = new StringBuilder(
                "INSERT INTO box_instance (task_id, fire_key, state, scheduled_at, created_at) VALUES ");
        for (int i = 0; i < BATCH; i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, 'READY', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
        }
        BATCH_INSERT = sql.toString();
    }

    /** {@link #BATCH} rows in one statement, one commit: as the firing loop writes a batch of due runs. */
    private static void batch(Connection c, long n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(BATCH_INSERT)) {
            long task = Thread.currentThread().threadId();
            for (int i = 0; i < BATCH; i++) {
                ps.setLong(2 * i + 1, task);
                ps.setString(2 * i + 2, n + "-" + i);
            }
            ps.executeUpdate();
        }
    }

    /** Commits per second of {@code work} from {@code clients} connections at once, for {@code seconds}. */
    private static double commits(HikariDataSource ds, int clients, int seconds, Work work) {
        try {
            return Rate.perSecond(clients, seconds, end -> {
                try (Connection c = ds.getConnection()) {
                    long n = 0;
                    while (System.nanoTime() < end) {
                        work.once(c, n++);
                    }
                    return n;
                }
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("box: interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("box: " + e.getMessage(), e);
        }
    }
}
