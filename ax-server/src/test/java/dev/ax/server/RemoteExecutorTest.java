package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.executor.ExecutorAgent;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An executor in "another process": the HTTP channel, an executor token, the same protocol. */
class RemoteExecutorTest {
    @TempDir
    Path dir;

    @Test
    void a_remote_executor_runs_work_of_its_group_over_http() {
        try (AxServer server = AxServer.start(AxServerTest.config(dir, TestDatabases.h2(), List.of(), null))) {
            server.store().tx(tx -> {
                server.store().tokens().add(tx, "exec-remote", "exec-secret", "executor", "test");
                return null;
            });
            ServerClient admin = new ServerClient(server.url(), server.adminToken());
            admin.post("/api/tasks", """
                    {"taskName":"remote","trigger":{"type":"event"},"action":{"type":"shell","command":"echo from-afar","group":"etl"}}""");
            long id = admin.post("/api/trigger", "{\"taskName\":\"remote\"}").json().get("instanceId").asLong();
            assertThat(admin.instance(id).get("waitingReason").asText()).isEqualTo("no executor for group etl is online");

            try (HttpExecutorChannel channel = new HttpExecutorChannel(server.url(), "exec-secret");
                 ExecutorAgent agent = new ExecutorAgent(ExecutorConfig.of("remote-1", List.of("etl")).withPollWaitMillis(2000), channel)) {
                agent.start();

                await().atMost(Duration.ofSeconds(15)).until(() -> admin.instance(id).get("state").asText().equals("SUCCESS"));
                assertThat(admin.instance(id).get("executorId").asText()).isEqualTo("remote-1");
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                        assertThat(admin.get("/api/instances/" + id + "/log?format=text").body()).contains("from-afar"));
                assertThat(agent.errorCount()).isZero();
            }
        }
    }
}
