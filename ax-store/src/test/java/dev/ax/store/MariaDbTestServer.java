package dev.ax.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The MariaDB server of {@link TestDatabases#mariadb()}: the one at {@code AX_TEST_MARIADB_URL} when
 * that is set (a configured server that is down fails the test, never skips it), else an embedded
 * one started once per JVM ({@link EmbeddedMariaDb}); where neither serves, the MariaDB tests are
 * skipped with a notice saying how to run them.
 *
 * <p>A test database is a copy of a template that AX's own migrations made once per JVM: its tables
 * created {@code LIKE} the template's, the rows the migrations wrote (the schema history among them)
 * copied, so that AX opens it as migrated; copies are made ahead, while tests run. Flyway's run took
 * over a second per database, the copy half of that, made ahead none of the test's.
 */
final class MariaDbTestServer {
    static final String URL_ENV = "AX_TEST_MARIADB_URL";

    /** The session zone of every test database: no code may rely on a UTC session. */
    static final String SESSION_ZONE = "+05:30";

    private static String adminUrl;
    private static String unavailable;
    private static HikariDataSource admin;
    private static Template template;
    private static final List<String> CREATED = new CopyOnWriteArrayList<>();
    /** Databases made ahead (their names), or why one could not be. */
    private static final int AHEAD = 2;

    private static final BlockingQueue<Object> READY = new ArrayBlockingQueue<>(AHEAD);
    private static final Object MAKING = new Object();
    private static boolean stopping;

    /** The migrated template: its tables in creation order, and those with rows. */
    private record Template(String name, List<String> tables, List<String> seeded) {}

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(MariaDbTestServer::dropCreated, "ax-test-mariadb-cleanup"));
    }

    private MariaDbTestServer() {}

    /** A fresh database, as AX is given it: a {@code jdbc:mariadb://} URL whose sessions run in {@link #SESSION_ZONE}. */
    static DbConfig database() {
        template();
        try {
            Object made = READY.poll(60, TimeUnit.SECONDS);
            if (made instanceof String name) {
                return config(name);
            }
            throw new IllegalStateException(
                    "cannot create a test database on " + adminUrl + ": " + made, (Throwable) made);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a test database", e);
        }
    }

    /**
     * Makes databases ahead, {@link #AHEAD} at a time, while the tests run: a copy costs half a second of
     * the server's disk, which a test waiting on a clock does not miss. Puts the name of each database
     * made, or the exception that stopped it, into {@link #READY}.
     */
    private static void makeAhead(Template t) {
        while (true) {
            String name = newName("");
            List<String> copy = new ArrayList<>();
            copy.add("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            t.tables()
                    .forEach(table ->
                            copy.add("CREATE TABLE " + name + "." + table + " LIKE " + t.name() + "." + table));
            t.seeded()
                    .forEach(table ->
                            copy.add("INSERT INTO " + name + "." + table + " SELECT * FROM " + t.name() + "." + table));
            Object made = name;
            synchronized (MAKING) { // the clean-up at exit waits for a copy under way
                if (stopping) {
                    return;
                }
                try (Connection c = admin.getConnection();
                        Statement s = c.createStatement()) {
                    CREATED.add(name);
                    for (String statement : copy) {
                        s.execute(statement);
                    }
                } catch (SQLException e) {
                    made = e;
                }
            }
            try {
                READY.put(made);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static DbConfig config(String database) {
        String url = TestDatabases.withDatabase(adminUrl, database);
        url += (url.contains("?") ? "&" : "?") + "sessionVariables=time_zone='" + SESSION_ZONE + "'";
        return new DbConfig(url, null, null, 10);
    }

    private static String newName(String suffix) {
        return "ax_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16) + suffix;
    }

    private static synchronized Template template() {
        if (template != null) {
            return template;
        }
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(adminUrl());
        pool.setMaximumPoolSize(2);
        pool.setPoolName("ax-test-mariadb-admin");
        admin = new HikariDataSource(pool);
        String name = newName("_template");
        try (Connection c = admin.getConnection();
                Statement s = c.createStatement()) {
            CREATED.add(name);
            s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            Store.open(config(name)).close();
            List<String> tables = new ArrayList<>();
            List<String> seeded = new ArrayList<>();
            try (var rs = s.executeQuery("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '"
                    + name + "' ORDER BY TABLE_NAME")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                try (var rs = s.executeQuery("SELECT 1 FROM " + name + "." + table + " LIMIT 1")) {
                    if (rs.next()) {
                        seeded.add(table);
                    }
                }
            }
            template = new Template(name, tables, seeded);
            Thread.ofPlatform().daemon().name("ax-test-mariadb-maker").start(() -> makeAhead(template));
            return template;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot make the test template on " + adminUrl + ": " + e.getMessage(), e);
        }
    }

    static synchronized boolean serves() {
        return server() != null;
    }

    private static synchronized String adminUrl() {
        String url = server();
        if (url == null) {
            Assumptions.abort(unavailable);
        }
        return url;
    }

    /** The server's admin URL, once found; null (with the notice printed once) when there is none. */
    private static synchronized String server() {
        if (adminUrl != null || unavailable != null) {
            return adminUrl;
        }
        String configured = System.getenv(URL_ENV);
        if (configured != null && !configured.isBlank()) {
            try (Connection c = DriverManager.getConnection(configured)) {
                c.isValid(5);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        URL_ENV + "=" + configured + " is set but MariaDB cannot be reached: " + e.getMessage(), e);
            }
            adminUrl = configured;
            return adminUrl;
        }
        try {
            adminUrl = EmbeddedMariaDb.start();
        } catch (RuntimeException | LinkageError e) {
            unavailable = "MariaDB tests skipped: " + URL_ENV + " is not set and the embedded MariaDB did not start ("
                    + e.getMessage() + "). Set " + URL_ENV
                    + "=jdbc:mariadb://HOST:3306/DB?user=USER&password=PASSWORD to run them on a server.";
            System.err.println("NOTICE: " + unavailable);
        }
        return adminUrl;
    }

    /** Drops this JVM's test databases, four at a time (each drop waits for the server's disk). */
    private static void dropCreated() {
        synchronized (MAKING) {
            stopping = true;
        }
        if (CREATED.isEmpty() || admin == null) {
            return;
        }
        ConcurrentLinkedQueue<String> left = new ConcurrentLinkedQueue<>(CREATED);
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 4; i++) {
                pool.execute(() -> {
                    try (Connection c = DriverManager.getConnection(adminUrl);
                            Statement s = c.createStatement()) {
                        for (String name = left.poll(); name != null; name = left.poll()) {
                            s.execute("DROP DATABASE IF EXISTS " + name);
                        }
                    } catch (SQLException e) {
                        System.err.println("could not drop MariaDB test databases: " + e.getMessage());
                    }
                });
            }
        }
    }
}
