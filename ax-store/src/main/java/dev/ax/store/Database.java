package dev.ax.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;

/**
 * The connection pool, migrations, and transactions. {@link #open} migrates the schema and then
 * checks (with {@link SchemaGuard}) that the uniqueness guarantees AX relies on are in place.
 */
public final class Database implements AutoCloseable {
    private final HikariDataSource dataSource;
    private final Dialect dialect;

    private Database(HikariDataSource dataSource, Dialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
    }

    public static Database open(DbConfig config) {
        HikariConfig hc = new HikariConfig();
        Dialect dialect = config.dialect();
        hc.setJdbcUrl(dialect.driverUrl(config.url()));
        hc.setUsername(config.user());
        hc.setPassword(config.password() == null ? "" : config.password());
        hc.setMaximumPoolSize(config.poolSize());
        hc.setAutoCommit(false);
        hc.setPoolName("ax-db");
        // The store's locking assumes READ COMMITTED (PostgreSQL's default): each statement sees what
        // committed before it. MariaDB's default, REPEATABLE READ, would also take gap locks.
        hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        if (dialect.sessionSetup() != null) {
            hc.setConnectionInitSql(dialect.sessionSetup());
        }
        dialect.driverProperties().forEach(hc::addDataSourceProperty);
        // Fail fast at start-up when the database is down, with the driver's message.
        hc.setInitializationFailTimeout(10_000);
        HikariDataSource ds = new HikariDataSource(hc);
        Database db = new Database(ds, dialect);
        try {
            db.migrate();
            SchemaGuard.check(db);
            return db;
        } catch (RuntimeException e) {
            ds.close();
            throw e;
        }
    }

    private void migrate() {
        Flyway flyway = Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrationLocation())
                .table("ax_schema_history")
                .load();
        refuseNewerSchema(flyway.info().all());
        flyway.migrate();
    }

    /**
     * An older node on a schema a newer AX has migrated would write rows the newer code does not
     * expect (or miss columns it relies on): it stops instead, saying what to do. Flyway itself
     * lets such "future" migrations pass.
     */
    static void refuseNewerSchema(MigrationInfo[] migrations) {
        List<MigrationInfo> future = Arrays.stream(migrations)
                .filter(m ->
                        m.getState() == MigrationState.FUTURE_SUCCESS || m.getState() == MigrationState.FUTURE_FAILED)
                .toList();
        if (future.isEmpty()) {
            return;
        }
        String known = Arrays.stream(migrations)
                .filter(m -> m.getState().isResolved() && m.getVersion() != null)
                .map(m -> "V" + m.getVersion())
                .reduce((a, b) -> b)
                .orElse("none");
        throw new StoreException(
                "the database's schema is at V" + future.getLast().getVersion()
                        + ", newer than this AX knows (" + known + "): a newer AX has upgraded it. Run that version"
                        + " (or newer) on this node; an older AX never runs on a newer schema.");
    }

    /**
     * Writes an online backup of the embedded H2 database into the zip file {@code to} (H2's
     * {@code BACKUP TO}: a consistent copy while the node goes on). PostgreSQL and MariaDB are backed
     * up with their own tools (pg_dump, mariadb-dump), not through AX: refused.
     */
    public void backupTo(java.nio.file.Path to) {
        switch (dialect) {
            case POSTGRES ->
                throw new UnsupportedOperationException(
                        "the database is PostgreSQL: back it up with pg_dump (docs/deploy.md)");
            case MARIADB ->
                throw new UnsupportedOperationException(
                        "the database is MariaDB or MySQL: back it up with mariadb-dump or mysqldump (docs/deploy.md)");
            case H2 -> {}
        }
        // A file name the server chose, quoted as an SQL string: BACKUP TO takes no parameter.
        String file = to.toAbsolutePath().toString().replace("'", "''");
        tx(tx -> tx.update("BACKUP TO '" + file + "'"));
    }

    public Dialect dialect() {
        return dialect;
    }

    /**
     * Reports the pool's gauges (connections active, idle, pending; wait times) to a metrics registry:
     * a Micrometer {@code MeterRegistry}, as HikariCP takes it. False if the pool has a registry already.
     */
    public boolean bindPoolMetrics(Object registry) {
        try {
            dataSource.setMetricRegistry(registry);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    public DataSource dataSource() {
        return dataSource;
    }

    @FunctionalInterface
    public interface TxWork<T> {
        T run(Tx tx);
    }

    /** Runs {@code work} in one transaction: committed when it returns, rolled back when it throws. */
    public <T> T tx(TxWork<T> work) {
        try (Connection c = dataSource.getConnection()) {
            try {
                Tx tx = new Tx(c, dialect);
                T result = work.run(tx);
                c.commit();
                tx.committed();
                return result;
            } catch (RuntimeException | Error e) {
                rollbackQuietly(c, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException("database unavailable: " + e.getMessage(), e);
        }
    }

    public void txVoid(Consumer<Tx> work) {
        tx(t -> {
            work.accept(t);
            return null;
        });
    }

    private static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
