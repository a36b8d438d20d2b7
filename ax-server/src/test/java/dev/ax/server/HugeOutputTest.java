package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.api.HttpOptions;
import dev.ax.executor.ExecutorAgent;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that prints far more than one request may hold, the worst bytes for JSON among it, through a remote
 * executor over HTTP to a server with the smallest request size limit it can be given.
 */
class HugeOutputTest {
    @TempDir
    Path dir;

    @Test
    void megabytes_of_binary_output_and_a_line_of_control_characters_reach_the_server_under_the_smallest_limit() {
        assertThat(HttpExecutorChannel.MAX_REQUEST_BYTES)
                .as("an executor's largest request fits the smallest limit")
                .isLessThanOrEqualTo((int) HttpOptions.MIN_MAX_REQUEST_BYTES);
        ServerConfig config = AxServerTest.config(dir, TestDatabases.h2(), List.of(), null)
                .withHttp(HttpOptions.DEFAULT.withMaxRequestBytes(HttpOptions.MIN_MAX_REQUEST_BYTES));
        try (AxServer server = AxServer.start(config)) {
            server.store().tx(tx -> {
                server.store().tokens().add(tx, "exec-remote", "exec-secret", "executor", "test");
                return null;
            });
            ServerClient admin = new ServerClient(server.url(), server.adminToken());
            // Random bytes: control characters (six bytes each in JSON) and invalid UTF-8; then one 300 KB line of
            // \001.
            String command =
                    "head -c 2000000 /dev/urandom; echo; head -c 300000 /dev/zero | tr '\\\\0' '\\\\1'; echo; echo the-end";
            admin.post("/api/tasks", """
                    {"taskName":"noisy","trigger":{"type":"event"},"action":{"type":"shell","command":"%s","group":"etl"}}""".formatted(command));
            long id = admin.post("/api/trigger", "{\"taskName\":\"noisy\"}")
                    .json()
                    .get("instanceId")
                    .asLong();

            try (HttpExecutorChannel channel = new HttpExecutorChannel(server.url(), "exec-secret");
                    ExecutorAgent agent = new ExecutorAgent(
                            ExecutorConfig.of("noisy-1", List.of("etl")).withPollWaitMillis(2000), channel)) {
                agent.start();

                // A refused chunk would be retried for ever and the run would never end: SUCCESS means every request
                // fit.
                await().atMost(Duration.ofSeconds(90))
                        .until(() -> admin.instance(id).get("state").asText().equals("SUCCESS"));
                assertThat(agent.errorCount()).isZero();
            }
            String log = admin.get("/api/instances/" + id + "/log?format=text").body();
            assertThat(log).endsWith("the-end\n");
            assertThat(log.chars().filter(c -> c == 1).count()).isGreaterThanOrEqualTo(300_000);
        }
    }
}
