package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import dev.ax.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up, the admin token bootstrap, and refusing to start. */
class AxServerTest {
    @TempDir
    Path dir;

    static ServerConfig config(Path dataDir, DbConfig db, List<String> groups, String adminToken) {
        return new ServerConfig(0, dataDir, db, groups, adminToken, "node-1", SchedulerConfig.DEFAULT, Duration.ZERO);
    }

    @Test
    void starts_on_the_embedded_database_and_writes_an_owner_only_admin_token() throws Exception {
        long start = System.nanoTime();
        try (AxServer server = AxServer.start(config(dir, null, List.of("default"), null))) {
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(took).as("start-up time").isLessThan(Duration.ofSeconds(5));
            Path file = server.adminTokenFile();
            assertThat(file).isEqualTo(dir.resolve("admin.token"));
            assertThat(Files.readString(file).strip()).isEqualTo(server.adminToken());
            assertThat(server.adminToken()).hasSizeGreaterThanOrEqualTo(43);
            // Never a leading '-': `ax … --token -xyz` would read the token as an option.
            assertThat(server.adminToken()).startsWith("axt_");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
            ServerClient client = new ServerClient(server.url(), server.adminToken());
            assertThat(client.get("/api/tasks").status()).isEqualTo(200);
            assertThat(new ServerClient(server.url(), null)
                            .get("/healthz")
                            .json()
                            .get("nodeId")
                            .asText())
                    .isEqualTo("node-1");
            assertThat(server.node().loopErrors()).isZero();
        }
    }

    @Test
    void keeps_the_admin_token_across_restarts() throws Exception {
        String first;
        try (AxServer server = AxServer.start(config(dir, null, List.of(), null))) {
            first = server.adminToken();
        }
        try (AxServer again = AxServer.start(config(dir, null, List.of(), null))) {
            assertThat(again.adminToken()).isEqualTo(first);
            assertThat(new ServerClient(again.url(), first).get("/api/tasks").status())
                    .isEqualTo(200);
            int tokens = again.store().tx(tx -> again.store().tokens().count(tx));
            assertThat(tokens).isEqualTo(1);
        }
    }

    @Test
    void registers_a_configured_admin_token_once() {
        DbConfig db = TestDatabases.h2();
        try (AxServer server = AxServer.start(config(dir, db, List.of(), "s3cret-token"))) {
            assertThat(server.adminToken()).isEqualTo("s3cret-token");
            assertThat(server.adminTokenFile()).isNull();
            assertThat(Files.exists(dir.resolve("admin.token"))).isFalse();
            assertThat(new ServerClient(server.url(), "s3cret-token")
                            .get("/api/tasks")
                            .status())
                    .isEqualTo(200);
        }
        try (AxServer server = AxServer.start(config(dir, db, List.of(), "s3cret-token"))) {
            int tokens = server.store().tx(tx -> server.store().tokens().count(tx));
            assertThat(tokens).isEqualTo(1);
        }
    }

    @Test
    void refuses_to_start_without_the_unique_slot_index() {
        DbConfig db = TestDatabases.h2();
        try (Store store = Store.open(db)) {
            store.tx(tx -> tx.update("ALTER TABLE ax_instance DROP CONSTRAINT ax_instance_slot_uq"));
        }

        assertThatThrownBy(() -> AxServer.start(config(dir, db, List.of("default"), null)))
                .isInstanceOf(StartupException.class)
                .hasMessageContaining("cannot start")
                .hasMessageContaining("unique index");
    }

    @Test
    void refuses_to_start_when_the_port_is_taken() {
        try (AxServer first = AxServer.start(config(dir, TestDatabases.h2(), List.of(), null))) {
            ServerConfig same = new ServerConfig(
                    first.port(),
                    dir.resolve("b"),
                    TestDatabases.h2(),
                    List.of(),
                    null,
                    "node-2",
                    SchedulerConfig.DEFAULT,
                    Duration.ZERO);
            assertThatThrownBy(() -> AxServer.start(same)).isInstanceOf(StartupException.class);
        }
    }

    @Test
    void describes_the_database_without_credentials() {
        assertThat(AxServer.describe(new DbConfig("jdbc:postgresql://db.example:5432/ax?password=x", "u", "p", 5), dir))
                .isEqualTo("PostgreSQL db.example:5432/ax");
        assertThat(AxServer.describe(new DbConfig("jdbc:mariadb://db.example:3306/ax?password=x", "u", "p", 5), dir))
                .isEqualTo("MariaDB db.example:3306/ax");
        assertThat(AxServer.describe(DbConfig.embedded(Path.of("ax-data")), Path.of("ax-data")))
                .isEqualTo("H2 file ax-data");
    }
}
