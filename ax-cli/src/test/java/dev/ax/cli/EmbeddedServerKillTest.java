package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.EventType;
import dev.ax.store.DbConfig;
import dev.ax.store.Json;
import dev.ax.store.Store;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ax server} on its embedded default (an H2 file), killed with SIGKILL while triggers stream in: every trigger
 * it answered 202 is in the database when it is opened again, with its CREATED event. An acknowledged run that is
 * gone after a crash is the "nothing is lost" rule broken for the default a new user starts with.
 */
class EmbeddedServerKillTest {
    static final String TOKEN = "kill-test-admin-token";

    @TempDir
    Path dir;

    Process server;

    @AfterEach
    void cleanUp() {
        if (server != null) {
            server.destroyForcibly();
        }
    }

    @Test
    void every_trigger_the_embedded_server_acknowledged_survives_a_sigkill() throws Exception {
        Path data = dir.resolve("data");
        Path log = dir.resolve("server.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "server",
                        "--port",
                        "0",
                        "--data-dir",
                        data.toString(),
                        "--no-executor")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("AX_ADMIN_TOKEN", TOKEN);
        server = pb.start();
        String url = await().atMost(Duration.ofSeconds(60))
                .until(() -> readyUrl(log), Optional::isPresent)
                .orElseThrow();

        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> created = http.send(
                post(
                        url + "/api/tasks",
                        "{\"taskName\":\"order_placed\",\"trigger\":{\"type\":\"event\"},"
                                + "\"action\":{\"type\":\"shell\",\"command\":\"true\"},\"policy\":{\"overflow\":\"ALLOW\"}}"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

        // Four clients trigger as fast as the server answers; the server is killed while they do.
        Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean go = new AtomicBoolean(true);
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            clients.add(Thread.ofPlatform().start(() -> {
                HttpRequest trigger = post(url + "/api/trigger", "{\"taskName\":\"order_placed\"}");
                while (go.get()) {
                    try {
                        HttpResponse<String> r = http.send(trigger, HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() == 202) {
                            acknowledged.add(((Number) Json.readMap(r.body()).get("instanceId")).longValue());
                        }
                    } catch (Exception e) {
                        return; // the server is gone
                    }
                }
            }));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= 500);
        server.destroyForcibly().waitFor(); // SIGKILL, mid-stream: no shutdown hook, no close
        go.set(false);
        for (Thread t : clients) {
            t.join();
        }

        try (Store store = Store.open(DbConfig.embedded(data))) {
            Set<Long> runs = new HashSet<>(store.tx(tx -> tx.query("SELECT id FROM ax_instance", r -> r.lng("id"))));
            Set<Long> createdEvents = new HashSet<>(store.tx(tx -> tx.query(
                    "SELECT instance_id FROM ax_event WHERE type = ?",
                    r -> r.lng("instance_id"),
                    EventType.CREATED.name())));
            Set<Long> lost = new HashSet<>(acknowledged);
            lost.removeAll(runs);
            assertThat(lost)
                    .as("runs answered 202 and gone after the kill, of %d acknowledged", acknowledged.size())
                    .isEmpty();
            assertThat(createdEvents).containsAll(acknowledged);
        }
    }

    static HttpRequest post(String url, String json) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    /** The URL from the server's "AX server ready at …" line, once it is written. */
    static Optional<String> readyUrl(Path log) throws IOException {
        if (!Files.exists(log)) {
            return Optional.empty();
        }
        return Files.readAllLines(log).stream()
                .filter(l -> l.startsWith("AX server ready at "))
                .map(l -> l.substring("AX server ready at ".length()).strip())
                .findFirst();
    }
}
