package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ax db backup FILE}: an online copy of the embedded database that a new node starts from. */
class DbBackupTest {
    @TempDir
    Path dir;

    static AxServer start(Path data, DbConfig db) {
        return AxServer.start(
                new ServerConfig(0, data, db, List.of("default"), null, "backup-node", null, Duration.ZERO));
    }

    static Cli.Result ax(AxServer server, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--server=" + server.url());
        all.add("--token=" + server.adminToken());
        return Cli.run(all.toArray(String[]::new));
    }

    @Test
    void a_backup_taken_while_the_node_runs_restores_into_a_node_with_the_same_tasks() throws Exception {
        Path data = dir.resolve("data");
        Path backup = dir.resolve("backups/ax.zip");
        Files.createDirectories(backup.getParent());
        try (AxServer server = start(data, DbConfig.embedded(data))) {
            Path task = Files.writeString(
                    dir.resolve("t.json"),
                    "{\"taskName\":\"kept\",\"trigger\":{\"type\":\"cron\",\"expression\":\"0 2 * * *\"},"
                            + "\"action\":{\"type\":\"shell\",\"command\":\"true\"}}");
            assertThat(ax(server, "task", "apply", "-f", task.toString()).exitCode())
                    .isZero();

            Cli.Result r = ax(server, "db", "backup", backup.toString());
            assertThat(r.exitCode()).as(r.toString()).isZero();
            assertThat(r.out()).contains("written to " + backup);
            // The node went on: it still answers.
            assertThat(ax(server, "task", "list").out()).contains("kept");
        }

        Path restored = dir.resolve("restored");
        Files.createDirectories(restored);
        List<String> entries = new ArrayList<>();
        try (InputStream in = Files.newInputStream(backup);
                ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                entries.add(e.getName());
                Files.copy(zip, restored.resolve(Path.of(e.getName()).getFileName()));
            }
        }
        assertThat(entries).singleElement().asString().endsWith(".mv.db");
        // The secret key and the admin token are no part of the database: kept apart, restored beside it.
        for (String kept : List.of("secret.key", "admin.token")) {
            Files.copy(data.resolve(kept), restored.resolve(kept));
        }
        try (AxServer again = start(restored, DbConfig.embedded(restored))) {
            Cli.Result list = ax(again, "task", "list");
            assertThat(list.out()).as(list.toString()).contains("kept");
        }
    }

    @Test
    void a_postgresql_store_is_refused_with_what_to_use_instead() throws Exception {
        try (AxServer server = start(dir.resolve("pg"), TestDatabases.postgres())) {
            Cli.Result r = ax(server, "db", "backup", dir.resolve("x.zip").toString());
            assertThat(r.exitCode()).isEqualTo(ExitCodes.REFUSED);
            assertThat(r.err()).contains("pg_dump");
            assertThat(dir.resolve("x.zip")).doesNotExist();
        }
    }
}
