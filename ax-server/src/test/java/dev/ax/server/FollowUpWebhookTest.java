package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A failed run's webhook follow-up reaches a real HTTP server, with the failure in its body. */
class FollowUpWebhookTest {
    @TempDir
    Path dir;

    AxServer server;
    HttpServer hook;
    final List<String> bodies = new CopyOnWriteArrayList<>();
    final List<String> tokens = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hook.createContext("/failed", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            tokens.add(exchange.getRequestHeaders().getFirst("X-Token"));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        hook.start();
        server = AxServer.start(new ServerConfig(
                0, dir, TestDatabases.h2(), List.of("default"), "t", "node-1", SchedulerConfig.DEFAULT, Duration.ZERO));
    }

    @AfterEach
    void stop() {
        server.close();
        hook.stop(0);
    }

    @Test
    void the_webhook_gets_the_failed_run() {
        String url = "http://127.0.0.1:" + hook.getAddress().getPort() + "/failed";
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "flaky",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "echo broken; exit 4"),
                                "policy",
                                Map.of(
                                        "onFailedActions",
                                        List.of(Map.of(
                                                "type",
                                                "webhook",
                                                "url",
                                                url,
                                                "headers",
                                                Map.of("X-Token", "s3cret"))))),
                        "test");
        long id = server.node().tasks().trigger("flaky", Map.of(), Cause.EVENT, "test");
        await().atMost(Duration.ofSeconds(20)).until(() -> !bodies.isEmpty());
        assertThat(bodies.getFirst())
                .contains("\"instanceId\":" + id)
                .contains("\"taskName\":\"flaky\"")
                .contains("\"exitCode\":4");
        assertThat(tokens).containsExactly("s3cret");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> server.store().tx(tx -> server.store().events().forRun(tx, id, 0, 100)).stream()
                        .map(EventRow::type)
                        .anyMatch(t -> t == EventType.FOLLOW_UP_DONE));
    }
}
