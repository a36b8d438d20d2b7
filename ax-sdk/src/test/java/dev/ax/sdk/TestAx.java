package dev.ax.sdk;

import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real AX server on an in-memory H2 database, with no in-process executor (so only the SDK worker
 * under test serves its groups), an admin token and an executor token.
 */
final class TestAx implements AutoCloseable {
    static final String ADMIN_TOKEN = "admin-token";
    static final String EXECUTOR_TOKEN = "executor-token";

    final AxServer server;
    final AxClient client;

    private TestAx(AxServer server) {
        this.server = server;
        this.client = new AxClient(server.url(), ADMIN_TOKEN);
    }

    static TestAx start(Path dataDir) {
        return start(dataDir, SchedulerConfig.DEFAULT);
    }

    static TestAx start(Path dataDir, SchedulerConfig scheduler) {
        AxServer server = AxServer.start(new ServerConfig(
                0, dataDir, TestDatabases.h2(), List.of(), ADMIN_TOKEN, "node-1", scheduler, Duration.ZERO));
        server.store().tx(tx -> {
            server.store().tokens().add(tx, "sdk-worker", EXECUTOR_TOKEN, "executor", "test");
            return null;
        });
        return new TestAx(server);
    }

    /** A worker builder pointed at this server with the executor token, polling briefly so tests close fast. */
    AxWorkerBuilder worker(String group) {
        return AxWorker.builder()
                .server(server.url())
                .token(EXECUTOR_TOKEN)
                .group(group)
                .executorId("sdk-test")
                .pollWait(Duration.ofSeconds(1))
                .shutdownGrace(Duration.ofSeconds(2));
    }

    /** An event-triggered task whose action is the named handler in the group "orders". */
    void sdkTask(String name, String handler, String policyJson) {
        client.apply("""
                {"taskName":"%s","trigger":{"type":"event"},
                 "action":{"type":"sdk","handler":"%s","group":"orders"},
                 "policy":%s}""".formatted(name, handler, policyJson));
    }

    String state(long id) {
        return client.instance(id).path("state").asText();
    }

    @Override
    public void close() {
        server.close();
    }
}
