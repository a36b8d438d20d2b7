package dev.ax.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Assumptions;

/**
 * The MariaDB server of {@link TestDatabases#mariadb()}: the one at {@code AX_TEST_MARIADB_URL} when
 * that is set (a configured server that is down fails the test, never skips it), else an embedded
 * one started once per JVM ({@link EmbeddedMariaDb}); where neither serves, the MariaDB tests are
 * skipped with a notice saying how to run them.
 */
final class MariaDbTestServer {
    static final String URL_ENV = "AX_TEST_MARIADB_URL";

    /** The session zone of every test database: no code may rely on a UTC session. */
    static final String SESSION_ZONE = "+05:30";

    private static volatile String adminUrl;
    private static String unavailable;
    private static final List<String> CREATED = new CopyOnWriteArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(MariaDbTestServer::dropCreated, "ax-test-mariadb-cleanup"));
    }

    private MariaDbTestServer() {}

    /**
     * A fresh, empty database on the server, as AX is given it: a {@code jdbc:mariadb://} URL whose
     * sessions run in {@link #SESSION_ZONE}. Creating one costs a few milliseconds (no template to copy:
     * AX's migration is a single baseline).
     */
    static DbConfig database() {
        String admin = adminUrl();
        String name = "ax_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = DriverManager.getConnection(admin);
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            CREATED.add(name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a test database on " + admin + ": " + e.getMessage(), e);
        }
        String url = TestDatabases.withDatabase(admin, name);
        url += (url.contains("?") ? "&" : "?") + "sessionVariables=time_zone='" + SESSION_ZONE + "'";
        return new DbConfig(url, null, null, 10);
    }

    private static synchronized String adminUrl() {
        if (adminUrl != null) {
            return adminUrl;
        }
        if (unavailable != null) {
            Assumptions.abort(unavailable);
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
            return adminUrl;
        } catch (RuntimeException | LinkageError e) {
            unavailable = "MariaDB tests skipped: " + URL_ENV + " is not set and the embedded MariaDB did not start ("
                    + e.getMessage() + "). Set " + URL_ENV
                    + "=jdbc:mariadb://HOST:3306/DB?user=USER&password=PASSWORD to run them on a server.";
            System.err.println("NOTICE: " + unavailable);
            Assumptions.abort(unavailable);
            throw e; // not reached: abort throws
        }
    }

    private static void dropCreated() {
        if (CREATED.isEmpty() || adminUrl == null) {
            return;
        }
        try (Connection c = DriverManager.getConnection(adminUrl);
                Statement s = c.createStatement()) {
            for (String name : CREATED) {
                s.execute("DROP DATABASE IF EXISTS " + name);
            }
        } catch (SQLException e) {
            System.err.println("could not drop MariaDB test databases: " + e.getMessage());
        }
    }
}
