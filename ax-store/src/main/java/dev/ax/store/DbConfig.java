package dev.ax.store;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to reach the database. Immutable once built; {@link #embedded(Path)} is the default.
 *
 * @param poolSize connections in the pool; the firing loop, the claim path and the API share it
 */
public record DbConfig(String url, String user, String password, int poolSize) {
    public static final int DEFAULT_POOL_SIZE = 10;

    public DbConfig {
        Objects.requireNonNull(url, "url");
        if (poolSize < 1) {
            throw new IllegalArgumentException("db pool size must be at least 1, was " + poolSize);
        }
        Dialect.forUrl(url);
    }

    /**
     * The embedded H2 file database under {@code dataDir}: single node, nothing to install. H2 closes
     * it when the pool closes its last connection, not from a JVM shutdown hook of its own: that hook
     * would race the node's orderly stop (its loops would fail on a closed database while stopping).
     *
     * <p>{@code WRITE_DELAY=0}: each commit is written to the file before it returns. H2's default
     * writes committed changes up to half a second later, so a killed process (SIGKILL, the OOM
     * killer) lost runs and events it had already acknowledged. Written means handed to the
     * operating system, not synced to the disk: it survives the crash of the process, not of the
     * machine (PostgreSQL is the database for that).
     */
    public static DbConfig embedded(Path dataDir) {
        String file = dataDir.toAbsolutePath().resolve("ax").toString();
        return new DbConfig(
                "jdbc:h2:file:" + file + ";DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_ON_EXIT=FALSE"
                        + ";WRITE_DELAY=0",
                "ax",
                "",
                DEFAULT_POOL_SIZE);
    }

    public Dialect dialect() {
        return Dialect.forUrl(url);
    }
}
