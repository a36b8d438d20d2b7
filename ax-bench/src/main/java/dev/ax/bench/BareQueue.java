package dev.ax.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W2's drain with no scheduler: the fewest statements a durable run queue needs, in bare SQL on a table shaped and
 * indexed like AX's run table, against the same server. Its runs are inserted READY; {@link #CLIENTS} clients each take
 * {@link #CLAIM} of them at a time ({@code SELECT ... FOR UPDATE SKIP LOCKED}, one UPDATE to RUNNING, a commit) and
 * mark them done (one UPDATE to SUCCESS, a commit), until none is left. What a server does here bounds what any
 * scheduler keeping runs in it can do; the ratio of two servers' figures says how far apart the servers themselves are.
 */
final class BareQueue {
    static final int CLIENTS = 4;
    static final int CLAIM = 100;
    private static final int INSERT_CHUNK = 500;
    private static final String DB = "ax_bench_bare";

    private BareQueue() {}

    /** The drain on each server, runs per second. */
    record Figures(int runs, double postgres, double mariadb) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("system", "bare SQL queue");
            m.put("runs", runs);
            m.put("clients", CLIENTS);
            m.put("claim", CLAIM);
            m.put("postgresRunsPerSecond", W1Stats.round(postgres));
            m.put("mariadbRunsPerSecond", W1Stats.round(mariadb));
            return m;
        }

        /** Its rows and note in W2's table. */
        void addTo(Table t) {
            t.row("bare SQL queue on PostgreSQL", Table.num(runs), Table.num(postgres));
            t.row("bare SQL queue on MariaDB", Table.num(runs), Table.num(mariadb));
            t.note("bare SQL queue: the drain with no scheduler (BareQueue): " + CLIENTS + " clients each claim "
                    + CLAIM
                    + " runs FOR UPDATE SKIP LOCKED, move them to RUNNING, commit, then to SUCCESS, commit; on a table"
                    + " with the run table's columns and indexes, on the same servers. MariaDB / PostgreSQL: "
                    + Table.ratio(mariadb, postgres) + ".");
        }

        /** The figures in a line of the bar. */
        String ratioText() {
            return "bare SQL queue on the same servers: " + Table.num(postgres) + " -> " + Table.num(mariadb)
                    + " runs/s (" + Table.ratio(mariadb, postgres) + ")";
        }
    }

    /** The drain of about {@code runs} runs (a multiple of the insert chunk) on PostgreSQL, then on MariaDB. */
    static Figures onBoth(Pg pg, MariaDb mariadb, int runs) {
        int n = Math.max(INSERT_CHUNK, runs / INSERT_CHUNK * INSERT_CHUNK);
        System.err.printf("bare SQL queue: draining %,d runs on PostgreSQL, then on MariaDB ...%n", n);
        return new Figures(n, drain(pg, n), drain(mariadb, n));
    }

    /** Drains {@code runs} READY runs on {@code db}'s server; runs per second. */
    static double drain(BenchDb db, int runs) {
        db.recreate(DB);
        try {
            String now = db.now();
            try (Connection c = db.connect(DB);
                    Statement s = c.createStatement()) {
                createTable(db, s);
                c.setAutoCommit(false);
                fill(c, runs, now);
                c.setAutoCommit(true);
            }
            db.analyze(DB, "bare_run");
            AtomicLong done = new AtomicLong();
            long start = System.nanoTime();
            try (ExecutorService clients = Executors.newFixedThreadPool(CLIENTS)) {
                List<Future<?>> each = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    String executor = "bare-" + i;
                    each.add(clients.submit(() -> {
                        try (Connection c = db.connect(DB)) {
                            consume(c, now, executor, done);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : each) {
                    f.get();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (done.get() != runs) {
                throw new IllegalStateException("bare queue: drained " + done.get() + " of " + runs);
            }
            return runs / seconds;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("bare queue: interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "bare queue on " + db.product() + ": " + e.getCause().getMessage(), e);
        } catch (SQLException e) {
            throw new IllegalStateException("bare queue on " + db.product() + ": " + e.getMessage(), e);
        } finally {
            db.drop(DB);
        }
    }

    private static void createTable(BenchDb db, Statement s) throws SQLException {
        boolean maria = db instanceof MariaDb;
        String id = maria ? "BIGINT AUTO_INCREMENT" : "BIGSERIAL";
        String ts = maria ? "DATETIME(6)" : "TIMESTAMPTZ";
        s.execute("CREATE TABLE bare_run (id " + id + " PRIMARY KEY, task_id BIGINT NOT NULL,"
                + " fire_key VARCHAR(100) NOT NULL, state VARCHAR(20) NOT NULL, executor_group VARCHAR(100) NOT NULL,"
                + " ready_at " + ts + " NOT NULL, scheduled_at " + ts + " NOT NULL, attempt INT NOT NULL DEFAULT 0,"
                + " executor_id VARCHAR(200), lease_expires_at " + ts + ", started_at " + ts + ", finished_at " + ts
                + ", exit_code INT, message TEXT, parent_id BIGINT, request_id VARCHAR(200), backfill_id BIGINT,"
                + " business_date DATE, workflow_run_id BIGINT, created_at " + ts + " NOT NULL, updated_at " + ts
                + " NOT NULL, UNIQUE (task_id, fire_key))" + (maria ? " ENGINE = InnoDB" : ""));
        // AX's indexes of its run table on each server: partial ones on PostgreSQL, whole ones on MariaDB.
        String[][] indexes = {
            {"ready", "state, executor_group, ready_at, id", null},
            {"state", "state, id", null},
            {"task", "task_id, id", null},
            {"active", "task_id, state, id", null},
            {"slot", "task_id, scheduled_at", null},
            {"parent", "parent_id", "parent_id IS NOT NULL"},
            {"request", "task_id, request_id", "request_id IS NOT NULL"},
            {"backfill", "backfill_id, id", "backfill_id IS NOT NULL"},
            {"business_date", "task_id, business_date, id", "business_date IS NOT NULL"},
            {"workflow_run", "workflow_run_id", "workflow_run_id IS NOT NULL"},
        };
        for (String[] i : indexes) {
            s.execute("CREATE INDEX bare_run_" + i[0] + " ON bare_run (" + i[1] + ")"
                    + (i[2] == null || maria ? "" : " WHERE " + i[2]));
        }
    }

    private static void fill(Connection c, int runs, String now) throws SQLException {
        StringBuilder sql =
                new StringBuilder("INSERT INTO bare_run (task_id, fire_key, state, executor_group, ready_at,"
                        + " scheduled_at, created_at, updated_at) VALUES ");
        for (int i = 0; i < INSERT_CHUNK; i++) {
            sql.append(i == 0 ? "" : ", ")
                    .append("(1, ?, 'READY', 'default', ")
                    .append(now)
                    .append(", ")
                    .append(now)
                    .append(", ")
                    .append(now)
                    .append(", ")
                    .append(now)
                    .append(')');
        }
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            for (int from = 0; from < runs; from += INSERT_CHUNK) {
                for (int i = 0; i < INSERT_CHUNK; i++) {
                    // Past the last run, a key already taken in this chunk: the chunk's text stays one.
                    ps.setString(i + 1, "slot-" + Math.min(from + i, runs - 1));
                }
                if (from + INSERT_CHUNK > runs) {
                    throw new IllegalArgumentException("runs must be a multiple of " + INSERT_CHUNK + ": " + runs);
                }
                ps.executeUpdate();
                c.commit();
            }
        }
    }

    /** Claims and finishes runs until a claim finds none. */
    private static void consume(Connection c, String now, String executor, AtomicLong done) throws SQLException {
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try (PreparedStatement claim = c.prepareStatement("SELECT id FROM bare_run WHERE state = 'READY'"
                + " AND executor_group = 'default' AND ready_at <= " + now + " ORDER BY ready_at, id LIMIT " + CLAIM
                + " FOR UPDATE SKIP LOCKED")) {
            while (true) {
                List<Long> ids = new ArrayList<>(CLAIM);
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
                if (ids.isEmpty()) {
                    c.commit();
                    return;
                }
                String in = String.join(", ", Collections.nCopies(ids.size(), "?"));
                List<Object> claimed = new ArrayList<>(List.of(executor));
                claimed.addAll(ids);
                List<Object> finished = new ArrayList<>(ids);
                finished.add(executor);
                update(
                        c,
                        "UPDATE bare_run SET state = 'RUNNING', attempt = attempt + 1, executor_id = ?, lease_expires_at = "
                                + now + ", started_at = " + now + ", updated_at = " + now + " WHERE id IN (" + in + ")",
                        claimed,
                        ids.size());
                c.commit();
                update(
                        c,
                        "UPDATE bare_run SET state = 'SUCCESS', exit_code = 0, finished_at = " + now + ", updated_at = "
                                + now + " WHERE id IN (" + in + ") AND executor_id = ?",
                        finished,
                        ids.size());
                c.commit();
                done.addAndGet(ids.size());
            }
        }
    }

    /** Runs {@code sql} with {@code args}; it must change {@code expected} rows (the claimed runs). */
    private static void update(Connection c, String sql, List<Object> args, int expected) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.size(); i++) {
                ps.setObject(i + 1, args.get(i));
            }
            int n = ps.executeUpdate();
            if (n != expected) {
                throw new SQLException("moved " + n + " of " + expected + " claimed runs");
            }
        }
    }
}
