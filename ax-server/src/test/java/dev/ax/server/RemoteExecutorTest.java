package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.executor.ExecutorAgent;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
            long id = admin.post("/api/trigger", "{\"taskName\":\"remote\"}")
                    .json()
                    .get("instanceId")
                    .asLong();
            assertThat(admin.instance(id).get("waitingReason").asText())
                    .isEqualTo("no executor for group etl is online");

            try (HttpExecutorChannel channel = new HttpExecutorChannel(server.url(), "exec-secret");
                    ExecutorAgent agent = new ExecutorAgent(
                            ExecutorConfig.of("remote-1", List.of("etl")).withPollWaitMillis(2000), channel)) {
                agent.start();

                await().atMost(Duration.ofSeconds(15))
                        .until(() -> admin.instance(id).get("state").asText().equals("SUCCESS"));
                assertThat(admin.instance(id).get("executorId").asText()).isEqualTo("remote-1");
                await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(admin.get("/api/instances/" + id + "/log?format=text")
                                        .body())
                                .contains("from-afar"));
                assertThat(agent.errorCount()).isZero();
            }
        }
    }

    /** Environments: the same protocol over HTTP, two executors labelled test and prod, each running only its tasks. */
    @Test
    void a_prod_task_runs_only_on_the_prod_executor_and_a_test_task_only_on_the_test_one() {
        try (AxServer server = AxServer.start(AxServerTest.config(dir, TestDatabases.h2(), List.of(), null))) {
            server.store().tx(tx -> {
                server.store().tokens().add(tx, "exec-remote", "exec-secret", "executor", "test");
                return null;
            });
            ServerClient admin = new ServerClient(server.url(), server.adminToken());
            for (String env : List.of("prod", "test")) {
                admin.post("/api/tasks", """
                        {"taskName":"deploy_%s","trigger":{"type":"event"},"action":{"type":"shell","command":"echo on-%s"},
                         "policy":{"overflow":"ALLOW"},"environment":["%s"]}""".formatted(env, env, env));
            }
            List<Long> prod = new ArrayList<>();
            List<Long> test = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                prod.add(admin.post("/api/trigger", "{\"taskName\":\"deploy_prod\"}")
                        .json()
                        .get("instanceId")
                        .asLong());
                test.add(admin.post("/api/trigger", "{\"taskName\":\"deploy_test\"}")
                        .json()
                        .get("instanceId")
                        .asLong());
            }
            try (HttpExecutorChannel channel = new HttpExecutorChannel(server.url(), "exec-secret");
                    ExecutorAgent testAgent = new ExecutorAgent(
                            ExecutorConfig.of("exec-test", List.of("default"))
                                    .withPollWaitMillis(2000)
                                    .withLabels(List.of("test")),
                            channel)) {
                testAgent.start();
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> test.stream()
                                .allMatch(id ->
                                        admin.instance(id).get("state").asText().equals("SUCCESS")));
                // Only a test executor is online: the prod runs wait, and say why.
                assertThat(prod).allSatisfy(id -> {
                    assertThat(admin.instance(id).get("state").asText()).isEqualTo("READY");
                    assertThat(admin.instance(id).get("waitingReason").asText()).contains("environment labels [prod]");
                });
                try (HttpExecutorChannel prodChannel = new HttpExecutorChannel(server.url(), "exec-secret");
                        ExecutorAgent prodAgent = new ExecutorAgent(
                                ExecutorConfig.of("exec-prod", List.of("default"))
                                        .withPollWaitMillis(2000)
                                        .withLabels(List.of("prod")),
                                prodChannel)) {
                    prodAgent.start();
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> prod.stream()
                                    .allMatch(id -> admin.instance(id)
                                            .get("state")
                                            .asText()
                                            .equals("SUCCESS")));
                    assertThat(admin.get("/api/executors").body())
                            .contains("\"labels\":[\"prod\"]", "\"labels\":[\"test\"]");
                }
            }
            assertThat(prod)
                    .allSatisfy(id -> assertThat(
                                    admin.instance(id).get("executorId").asText())
                            .isEqualTo("exec-prod"));
            assertThat(test)
                    .allSatisfy(id -> assertThat(
                                    admin.instance(id).get("executorId").asText())
                            .isEqualTo("exec-test"));
        }
    }
}
