package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.scheduler.MasterKey;
import dev.ax.store.DbConfig;
import dev.ax.store.TestDatabases;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresSecretsEndToEndTest extends SecretsEndToEndTest {
    @Override
    DbConfig freshDatabase() {
        return TestDatabases.postgres();
    }

    /**
     * Two nodes with one AX_SECRET_KEY: a secret set through one is opened by the other at the hand-off, and the other
     * masks it in output that does not even use it (it learned the value from the database within seconds).
     */
    @Test
    void a_secret_set_on_one_node_is_handed_out_and_masked_by_the_other() {
        String key = MasterKey.random().base64();
        AxServer a = server("node-a", List.of(), key);
        AxServer b = server("node-b", List.of("default"), key);
        setSecret(client(a), "db_password", PASSWORD);
        client(a).post("/api/tasks", shellTask("dump", "echo \"pw=$DB_PASSWORD\""));
        client(a).post("/api/tasks", """
                {"taskName":"leaky","trigger":{"type":"event"},"action":{"type":"shell","command":"echo copied %s"}}""".formatted(PASSWORD));

        long dump = trigger(client(a), "dump");
        assertThat(awaitEnd(client(a), dump).get("state").asText()).isEqualTo("SUCCESS");
        assertThat(client(a).get("/api/instances/" + dump + "/log?format=text").body())
                .isEqualTo("pw=***\n");
        assertThat(client(a).instance(dump).get("executorId").asText()).startsWith("node-b");

        await().atMost(Duration.ofSeconds(5))
                .until(() -> b.node().secrets().mask().apply(PASSWORD).equals("***"));
        long leaky = trigger(client(a), "leaky");
        assertThat(awaitEnd(client(a), leaky).get("state").asText()).isEqualTo("SUCCESS");
        String stored = b.store()
                .tx(tx -> String.join(
                        "\n",
                        b.store().logs().read(tx, leaky, 0, 10).stream()
                                .map(l -> l.text())
                                .toList()));
        assertThat(stored).as("masked by node b as it stored the output").isEqualTo("copied ***");
    }
}
