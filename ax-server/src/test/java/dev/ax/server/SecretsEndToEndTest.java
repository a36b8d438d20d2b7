package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.ax.scheduler.MasterKey;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.scheduler.SecretCipher;
import dev.ax.store.DbConfig;
import dev.ax.store.Dialect;
import dev.ax.store.SecretStore.SecretRow;
import dev.ax.store.Store;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets through a whole server (key file in its data directory, in-process executor), on H2 and PostgreSQL: a job
 * gets its secret and prints ***, an HTTP service gets the real header, no text column of any AX table holds a value,
 * a rotation keeps every value and retires the old key, and a node with another key fails the run naming both keys.
 */
abstract class SecretsEndToEndTest {
    static final String PASSWORD = "pw-7Hq2-correct-horse";
    static final String TOKEN = "tok-3f9a1c77e0b2";
    static final String ADMIN = "admin-token";

    @TempDir
    Path dir;

    DbConfig db;
    HttpServer service;
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<AxServer> servers = new ArrayList<>();

    abstract DbConfig freshDatabase();

    @BeforeEach
    void start() throws Exception {
        db = freshDatabase();
        service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        service.createContext("/partner", exchange -> {
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            authorizations.add(authorization);
            byte[] answer = ("{\"youSent\":\"" + authorization + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        service.start();
    }

    @AfterEach
    void stop() {
        servers.forEach(AxServer::close);
        service.stop(0);
    }

    AxServer server(String nodeId, List<String> groups, String secretKey) {
        AxServer s = AxServer.start(new ServerConfig(
                        0, dir.resolve("data"), db, groups, ADMIN, nodeId, SchedulerConfig.DEFAULT, Duration.ZERO)
                .withSecretKey(secretKey, null));
        servers.add(s);
        return s;
    }

    static ServerClient client(AxServer s) {
        return new ServerClient(s.url(), ADMIN);
    }

    static void setSecret(ServerClient api, String name, String value) {
        ServerClient.Response r = api.put("/api/secrets/" + name, "{\"value\":\"" + value + "\"}");
        assertThat(r.status()).as(r.body()).isIn(200, 201);
        assertThat(r.body()).doesNotContain(value);
    }

    static long trigger(ServerClient api, String task) {
        ServerClient.Response r = api.post("/api/tasks/" + task + "/trigger", "{}");
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("instanceId").asLong();
    }

    static JsonNode awaitEnd(ServerClient api, long id) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> List.of("SUCCESS", "FAILED")
                        .contains(api.instance(id).get("state").asText()));
        return api.instance(id);
    }

    static String shellTask(String name, String command) {
        return """
                {"taskName":"%s","trigger":{"type":"event"},
                 "action":{"type":"shell","command":%s,"env":{"DB_PASSWORD":"{{secret.db_password}}"}}}""".formatted(name, ServerClient.quote(command));
    }

    @Test
    void a_job_that_prints_its_secret_shows_stars_and_no_text_column_of_any_table_holds_a_value() {
        AxServer server = server("node-1", List.of("default"), null);
        ServerClient api = client(server);
        setSecret(api, "db_password", PASSWORD);
        setSecret(api, "api_token", TOKEN);

        ServerClient.Response created = api.post("/api/tasks", shellTask("dump", "echo \"pw=$DB_PASSWORD\""));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("warnings")).isEmpty();
        assertThat(api.put("/api/tasks/dump", shellTask("dump", "echo \"pw=$DB_PASSWORD\"; echo done"))
                        .status())
                .isEqualTo(200);
        long id = trigger(api, "dump");

        assertThat(awaitEnd(api, id).get("state").asText()).isEqualTo("SUCCESS");
        assertThat(api.get("/api/instances/" + id + "/log?format=text").body()).isEqualTo("pw=***\ndone\n");
        JsonNode task = api.get("/api/tasks/dump").json();
        assertThat(task.at("/definition/action/env/DB_PASSWORD").asText(task.toString()))
                .isEqualTo("{{secret.db_password}}");
        String versions = api.get("/api/tasks/dump/versions").body();
        assertThat(versions)
                .contains("{{secret.db_password}}")
                .contains("echo done")
                .doesNotContain(PASSWORD);

        ServerClient.Response http =
                api.post("/api/tasks", """
                {"taskName":"partner_push","trigger":{"type":"event"},
                 "action":{"type":"http","method":"POST","url":"http://127.0.0.1:%d/partner",
                           "headers":{"Authorization":"Bearer {{secret.api_token}}"},"body":{"ping":true}}}""".formatted(service.getAddress().getPort()));
        assertThat(http.status()).as(http.body()).isEqualTo(201);
        assertThat(http.json().get("warnings")).isEmpty();
        long call = trigger(api, "partner_push");

        assertThat(awaitEnd(api, call).get("state").asText()).isEqualTo("SUCCESS");
        assertThat(authorizations).containsExactly("Bearer " + TOKEN);
        String log = api.get("/api/instances/" + call + "/log?format=text").body();
        assertThat(log).contains("{\"youSent\":\"Bearer ***\"}").doesNotContain(TOKEN);

        assertThat(TextColumns.holding(server.store(), PASSWORD)).isEmpty();
        assertThat(TextColumns.holding(server.store(), TOKEN)).isEmpty();
        assertThat(TextColumns.holding(server.store(), "pw=***"))
                .as("the scan finds what is there")
                .isNotEmpty();
    }

    @Test
    void a_rotation_keeps_every_value_and_the_old_key_opens_nothing_once_a_restart_settled_it() throws Exception {
        AxServer first = server("node-1", List.of("default"), null);
        ServerClient api = client(first);
        setSecret(api, "db_password", PASSWORD);
        api.post("/api/tasks", shellTask("dump", "echo \"pw=$DB_PASSWORD\""));
        Path data = dir.resolve("data");
        MasterKey old = MasterKey.fromBase64(Files.readString(data.resolve("secret.key")));

        ServerClient.Response rotated = api.post("/api/secrets/rotate-key", "{}");

        assertThat(rotated.status()).as(rotated.body()).isEqualTo(200);
        assertThat(rotated.json().get("previousKeyId").asText()).isEqualTo(old.id());
        MasterKey next = MasterKey.fromBase64(Files.readString(data.resolve("secret.key")));
        assertThat(rotated.json().get("keyId").asText()).isEqualTo(next.id());
        assertThat(Files.exists(data.resolve("secret.key.previous"))).isTrue();
        List<SecretRow> rows = first.store().tx(tx -> first.store().secrets().all(tx));
        assertThat(rows).singleElement().satisfies(r -> {
            assertThat(r.keyId()).isEqualTo(next.id());
            assertThatThrownBy(() -> SecretCipher.open(old, r.name(), r.sealed()))
                    .isInstanceOf(SecretCipher.WrongKeyException.class);
        });
        long id = trigger(api, "dump");
        assertThat(awaitEnd(api, id).get("state").asText()).isEqualTo("SUCCESS");
        assertThat(api.get("/api/instances/" + id + "/log?format=text").body()).isEqualTo("pw=***\n");

        first.close();
        servers.remove(first);
        AxServer again = server("node-1", List.of("default"), null);

        assertThat(Files.exists(data.resolve("secret.key.previous")))
                .as("settled by the start")
                .isFalse();
        long after = trigger(client(again), "dump");
        assertThat(awaitEnd(client(again), after).get("state").asText()).isEqualTo("SUCCESS");
    }

    @Test
    void a_node_with_another_key_fails_the_run_naming_both_key_ids_and_never_the_value() {
        AxServer first = server("node-1", List.of(), null);
        ServerClient api = client(first);
        setSecret(api, "db_password", PASSWORD);
        api.post("/api/tasks", shellTask("dump", "echo \"pw=$DB_PASSWORD\""));
        String sealedWith = first.node().secrets().keyId();
        first.close();
        servers.remove(first);
        MasterKey other = MasterKey.random();

        AxServer stranger = server("node-2", List.of("default"), other.base64());
        long id = trigger(client(stranger), "dump");
        JsonNode run = awaitEnd(client(stranger), id);

        assertThat(run.get("state").asText()).isEqualTo("FAILED");
        assertThat(run.get("failureKind").asText()).isEqualTo("START_ERROR");
        assertThat(run.get("message").asText())
                .contains("key " + sealedWith)
                .contains(other.id())
                .contains("every node needs the same AX_SECRET_KEY")
                .doesNotContain(PASSWORD);
    }

    /** Every text column of every AX table, read through the database's own catalogue. */
    static final class TextColumns {
        private TextColumns() {}

        /** "table.column" of each text column that holds {@code value} somewhere. */
        static List<String> holding(Store store, String value) {
            return store.tx(tx -> {
                // AX's tables all begin with "ax": no LIKE escape needed (MariaDB reads a backslash in a literal as
                // one).
                String schema = tx.dialect() == Dialect.MARIADB ? "DATABASE()" : "CURRENT_SCHEMA";
                List<String[]> columns = tx.query(
                        "SELECT table_name AS table_name, column_name AS column_name FROM information_schema.columns"
                                + " WHERE table_schema = " + schema + " AND LOWER(table_name) LIKE 'ax%'"
                                + " AND (LOWER(data_type) LIKE '%char%' OR LOWER(data_type) LIKE '%text%' OR LOWER(data_type) LIKE '%clob%'"
                                + " OR LOWER(data_type) LIKE '%json%')",
                        r -> new String[] {r.str("table_name"), r.str("column_name")});
                assertThat(columns).as("text columns found in the catalogue").hasSizeGreaterThan(20);
                List<String> found = new ArrayList<>();
                for (String[] c : columns) {
                    long n = tx.queryOne(
                                    "SELECT COUNT(*) AS n FROM \"" + c[0] + "\" WHERE "
                                            + tx.dialect().castVarchar("\"" + c[1] + "\"") + " LIKE ?",
                                    r -> r.lng("n"),
                                    "%"
                                            + value.replace("\\", "\\\\")
                                                    .replace("%", "\\%")
                                                    .replace("_", "\\_") + "%")
                            .orElse(0L);
                    if (n > 0) {
                        found.add(c[0] + "." + c[1]);
                    }
                }
                return found;
            });
        }
    }
}
