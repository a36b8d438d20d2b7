package dev.ax.bench;

import dev.ax.executor.ExecutorConfig;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.DbConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Full AX server nodes (API, scheduler, optionally the in-process executor) for the workloads that need one. */
final class AxServers {
    static final String TOKEN = "ax-bench-admin-token-0123456789abcdef";

    private AxServers() {}

    /**
     * @param database   a PostgreSQL database to recreate, or null for the embedded H2 default in {@code dataDir}
     * @param executor   true to run the in-process executor (group "default")
     */
    static AxServer start(Pg pg, String database, Path dataDir, boolean executor) {
        return start(pg, database, dataDir, executor, ExecutorConfig.DEFAULT_CONCURRENCY);
    }

    /** As above, the in-process executor running {@code concurrency} runs at a time. */
    static AxServer start(Pg pg, String database, Path dataDir, boolean executor, int concurrency) {
        if (database != null) {
            pg.recreate(database);
        }
        return open(pg, database, dataDir, executor, concurrency, SchedulerConfig.DEFAULT);
    }

    /** A server on {@code database} as it stands (not recreated: a store a workload filled before), or on H2 if null. */
    static AxServer open(
            Pg pg, String database, Path dataDir, boolean executor, int concurrency, SchedulerConfig scheduler) {
        DbConfig db = database == null
                ? null
                : new DbConfig(pg.url(database), pg.user(), pg.password(), DbConfig.DEFAULT_POOL_SIZE);
        return AxServer.start(new ServerConfig(
                        0,
                        dataDir,
                        db,
                        executor ? List.of("default") : List.of(),
                        TOKEN,
                        "bench",
                        scheduler,
                        Duration.ZERO)
                .withExecutorConcurrency(concurrency));
    }

    static Path tempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }

    /** One number from AX's own database, through the node's pool (works for H2 and PostgreSQL). */
    static long scalar(AxServer server, String sql, Object... args) {
        try (Connection c = server.store().db().dataSource().getConnection();
                PreparedStatement st = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                st.setObject(
                        i + 1, args[i] instanceof Instant t ? OffsetDateTime.ofInstant(t, ZoneOffset.UTC) : args[i]);
            }
            long v;
            try (ResultSet r = st.executeQuery()) {
                r.next();
                v = r.getLong(1);
            }
            c.rollback();
            return v;
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
