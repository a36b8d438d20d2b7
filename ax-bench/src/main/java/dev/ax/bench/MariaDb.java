package dev.ax.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The MariaDB server AX's store runs on beside PostgreSQL in {@code w1} and {@code w2}: a database per run, dropped and
 * created again, and the server's counters around a window. Its counters are the whole server's (MariaDB keeps none
 * per database): nothing else should use the server while a window runs.
 */
final class MariaDb extends BenchDb {
    /** @param baseUrl e.g. {@code jdbc:mariadb://127.0.0.1:3306/} (a database name is appended) */
    MariaDb(String baseUrl, String user, String password) {
        super(baseUrl, user, password);
    }

    @Override
    public String product() {
        return "MariaDB";
    }

    @Override
    public String axSystem() {
        return "AX on MariaDB";
    }

    /** Whether the server answers: {@code w1} and {@code w2} leave AX on MariaDB out, saying so, when it does not. */
    boolean reachable() {
        try (Connection c = connect("")) {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void recreate(String database) {
        checkName(database);
        try (Connection c = connect("");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot recreate database " + database + " at " + baseUrl() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void drop(String database) {
        checkName(database);
        try (Connection c = connect("");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
        } catch (SQLException e) {
            // best effort
        }
    }

    private static void checkName(String database) {
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("database name " + database);
        }
    }

    @Override
    public long scalar(String database, String sql) {
        try (Connection c = connect(database);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Map<String, Long> tableSizes(String database, String... prefixes) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        try (Connection c = connect(database);
                Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery("SELECT TABLE_NAME, DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES"
                                + " WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME")) {
            while (r.next()) {
                String name = r.getString(1);
                for (String p : prefixes) {
                    if (name.toLowerCase().startsWith(p)) {
                        sizes.put(name, r.getLong(2));
                        break;
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return sizes;
    }

    /**
     * COMMIT statements, rows written by the storage engines (Handler_write, _update, _delete: the server's own
     * temporary tables count too) and the redo log's position (Innodb_lsn_current), all of the whole server.
     */
    @Override
    public Stats stats(String database) {
        Map<String, Long> v = new HashMap<>();
        try (Connection c = connect("");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Handler_write',"
                        + " 'Handler_update', 'Handler_delete', 'Innodb_lsn_current')")) {
            while (r.next()) {
                v.put(r.getString(1), r.getLong(2));
            }
        } catch (SQLException e) {
            return new Stats(-1, -1, -1, -1, -1);
        }
        return new Stats(
                v.getOrDefault("Com_commit", -1L),
                v.getOrDefault("Handler_write", -1L),
                v.getOrDefault("Handler_update", -1L),
                v.getOrDefault("Handler_delete", -1L),
                v.getOrDefault("Innodb_lsn_current", -1L));
    }

    @Override
    public String version() {
        try (Connection c = connect("");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT VERSION(), @@innodb_flush_log_at_trx_commit, @@innodb_buffer_pool_size")) {
            r.next();
            return r.getString(1) + " (innodb_flush_log_at_trx_commit " + r.getString(2) + ", buffer pool "
                    + r.getLong(3) / (1024 * 1024) + " MB)";
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    @Override
    public String processName() {
        return "mariadbd";
    }

    // AX's DATETIME columns hold UTC: no function of the session's time zone (UNIX_TIMESTAMP, FROM_UNIXTIME) applies.

    @Override
    public String epochMillis(String column) {
        return "CAST(TIMESTAMPDIFF(MICROSECOND, TIMESTAMP '1970-01-01 00:00:00', " + column + ") DIV 1000 AS SIGNED)";
    }

    @Override
    public String fromEpochSeconds(long epochSeconds) {
        return "TIMESTAMPADD(SECOND, " + epochSeconds + ", TIMESTAMP '1970-01-01 00:00:00')";
    }

    @Override
    public String nextWholeSecond() {
        return "UTC_TIMESTAMP() + INTERVAL 1 SECOND"; // UTC_TIMESTAMP() without a precision is the whole second
    }

    @Override
    public String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    public void analyze(String database, String... tables) {
        try (Connection c = connect(database);
                Statement st = c.createStatement()) {
            for (String t : tables) {
                st.execute("ANALYZE TABLE " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
