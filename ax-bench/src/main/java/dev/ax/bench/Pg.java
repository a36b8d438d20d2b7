package dev.ax.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL server the benchmarks share: one database per system, dropped and created
 * again for every run, and the server-side counters read around a measured window.
 */
final class Pg extends BenchDb {
    /** @param baseUrl e.g. {@code jdbc:postgresql://127.0.0.1:5432/} (a database name is appended) */
    Pg(String baseUrl, String user, String password) {
        super(baseUrl, user, password);
    }

    @Override
    public String product() {
        return "PostgreSQL";
    }

    @Override
    public String axSystem() {
        return "AX";
    }

    /** Drops (closing its connections) and creates {@code database}: every run starts from empty tables. */
    @Override
    public void recreate(String database) {
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("database name " + database);
        }
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + database);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot recreate database " + database + " at " + baseUrl() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void drop(String database) {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        } catch (SQLException e) {
            // best effort
        }
    }

    HikariDataSource pool(String database, int size, boolean autoCommit, String name) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url(database));
        hc.setUsername(user());
        hc.setPassword(password());
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(size);
        hc.setAutoCommit(autoCommit);
        hc.setPoolName(name);
        return new HikariDataSource(hc);
    }

    /** Runs a published DDL script (statements separated by ';', '--' comments) in one database. */
    void runScript(String database, String resource) {
        String sql;
        try (InputStream in = Pg.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no resource " + resource + " on the class path");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder clean = new StringBuilder();
        for (String line : sql.split("\n")) {
            int dash = line.indexOf("--");
            clean.append(dash >= 0 ? line.substring(0, dash) : line).append('\n');
        }
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            for (String stmt : clean.toString().split(";")) {
                String t = stmt.strip();
                if (t.isEmpty() || t.equalsIgnoreCase("commit")) {
                    continue;
                }
                s.execute(t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("running " + resource + ": " + e.getMessage(), e);
        }
    }

    /** Total size (table + indexes + toast) of each table whose name starts with one of the prefixes, bytes. */
    @Override
    public Map<String, Long> tableSizes(String database, String... prefixes) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        try (Connection c = connect(database);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT relname, pg_total_relation_size(oid) AS bytes FROM pg_class"
                        + " WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname")) {
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
    public String version() {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SHOW server_version")) {
            r.next();
            return r.getString(1);
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** {@code SHOW name} on the server, e.g. fsync, synchronous_commit. */
    String setting(String name) {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SHOW " + name)) {
            r.next();
            return r.getString(1);
        } catch (SQLException e) {
            return "?";
        }
    }

    /** The database's committed transactions and rows written (pg_stat_database), and the server's WAL position. */
    @Override
    public Stats stats(String database) {
        try (Connection c = connect("postgres");
                Statement s = c.createStatement()) {
            // Statistics are flushed by each backend at most once a second; wait for them.
            s.execute("SELECT pg_stat_force_next_flush()");
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet r = s.executeQuery("SELECT xact_commit, tup_inserted, tup_updated, tup_deleted,"
                    + " pg_current_wal_lsn() - '0/0'::pg_lsn FROM pg_stat_database WHERE datname = '" + database
                    + "'")) {
                if (!r.next()) {
                    return new Stats(0, 0, 0, 0, 0);
                }
                return new Stats(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5));
            }
        } catch (SQLException e) {
            return new Stats(-1, -1, -1, -1, -1);
        }
    }

    @Override
    public String processName() {
        return "postgres";
    }

    @Override
    public String epochMillis(String column) {
        return "(EXTRACT(EPOCH FROM " + column + ") * 1000)::bigint";
    }

    @Override
    public String fromEpochSeconds(long epochSeconds) {
        return "to_timestamp(" + epochSeconds + ")";
    }

    @Override
    public String nextWholeSecond() {
        return "date_trunc('second', CURRENT_TIMESTAMP) + INTERVAL '1 second'";
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP";
    }

    /** VACUUM ANALYZE: fresh statistics and a clean visibility map. */
    @Override
    public void analyze(String database, String... tables) {
        try (Connection c = connect(database);
                Statement st = c.createStatement()) {
            c.setAutoCommit(true);
            for (String t : tables) {
                st.execute("VACUUM ANALYZE " + t);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> split(String csv) {
        List<String> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }
}
