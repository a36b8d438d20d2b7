package dev.ax.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Databases for tests. PostgreSQL is the server at {@code AX_TEST_PG_URL} when that is set (a
 * configured server that is down fails the test, never skips it), else an embedded one started
 * once per JVM, so the test command also passes on a fresh machine; MariaDB likewise
 * ({@code AX_TEST_MARIADB_URL}, {@link MariaDbTestServer}). Each call gets a fresh database.
 * PostgreSQL and MariaDB sessions run in a non-UTC zone so that no code may rely on UTC sessions.
 */
public final class TestDatabases {
    public static final String PG_URL_ENV = "AX_TEST_PG_URL";
    private static final AtomicInteger H2_COUNTER = new AtomicInteger();
    private static volatile String adminUrl;
    private static EmbeddedPostgres embedded;
    private static final List<String> CREATED = new CopyOnWriteArrayList<>();

    static {
        // Test databases live as long as the test JVM: a shared server should not fill up with them.
        Runtime.getRuntime().addShutdownHook(new Thread(TestDatabases::dropCreated, "ax-test-db-cleanup"));
    }

    private TestDatabases() {}

    /** A fresh, empty in-memory H2 database (the embedded default's engine). */
    public static DbConfig h2() {
        return new DbConfig(
                "jdbc:h2:mem:ax" + H2_COUNTER.incrementAndGet()
                        + ";DB_CLOSE_DELAY=-1;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                "ax",
                "",
                10);
    }

    /** A fresh, empty PostgreSQL database. */
    public static DbConfig postgres() {
        String admin = adminUrl();
        String name = "ax_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = DriverManager.getConnection(admin);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
            CREATED.add(name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a test database on " + admin + ": " + e.getMessage(), e);
        }
        String url = withDatabase(admin, name);
        url += (url.contains("?") ? "&" : "?") + "options=-c%20TimeZone%3DAsia/Kolkata";
        return new DbConfig(url, null, null, 10);
    }

    /**
     * A fresh, empty MariaDB database (MariaDB's store serves MySQL too), its sessions in the zone
     * +05:30. Skips the calling test, with a notice, on a machine where no MariaDB is configured and
     * the embedded one cannot start.
     */
    public static DbConfig mariadb() {
        return MariaDbTestServer.database();
    }

    /** Whether {@link #mariadb()} has a server to make databases on; throws if a configured one does not answer. */
    public static boolean mariadbServes() {
        return MariaDbTestServer.serves();
    }

    /**
     * Drops this JVM's test databases, a few at a time: each DROP waits for a checkpoint, and one
     * after the other they outlasted surefire's exit timeout on a busy server (leaving them behind).
     */
    private static void dropCreated() {
        if (CREATED.isEmpty() || adminUrl == null) {
            return;
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        ConcurrentLinkedQueue<String> left = new ConcurrentLinkedQueue<>(CREATED);
        for (int i = 0; i < 6; i++) {
            pool.execute(() -> {
                try (Connection c = DriverManager.getConnection(adminUrl);
                        Statement s = c.createStatement()) {
                    for (String name = left.poll(); name != null; name = left.poll()) {
                        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                    }
                } catch (SQLException e) {
                    System.err.println("could not drop test databases: " + e.getMessage());
                }
            });
        }
        pool.shutdown();
        try {
            pool.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static synchronized String adminUrl() {
        if (adminUrl != null) {
            return adminUrl;
        }
        String configured = System.getenv(PG_URL_ENV);
        if (configured != null && !configured.isBlank()) {
            try (Connection c = DriverManager.getConnection(configured)) {
                c.isValid(5);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        PG_URL_ENV + "=" + configured + " is set but PostgreSQL cannot be reached: " + e.getMessage(),
                        e);
            }
            adminUrl = configured;
        } else {
            try {
                embedded = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new IllegalStateException(
                        "cannot start an embedded PostgreSQL (set " + PG_URL_ENV + " to use a server): "
                                + e.getMessage(),
                        e);
            }
            adminUrl = embedded.getJdbcUrl("postgres", "postgres");
        }
        return adminUrl;
    }

    /** Replaces the database name in a JDBC URL like {@code jdbc:postgresql://host:port/db?params}. */
    static String withDatabase(String url, String database) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q);
        String params = q < 0 ? "" : url.substring(q);
        int slash = base.indexOf('/', base.indexOf("//") + 2);
        String hostPart = slash < 0 ? base : base.substring(0, slash);
        return hostPart + "/" + database + params;
    }
}
