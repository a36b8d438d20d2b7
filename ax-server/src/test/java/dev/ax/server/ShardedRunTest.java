package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.ShardState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.RunRow;
import dev.ax.store.ShardRow;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sharded runs through a whole server and its in-process executor: what a shard's process sees
 * (AX_SHARD_INDEX / AX_SHARD_TOTAL, X-AX-Shard-* headers on a real HTTP server), one log per shard,
 * maxParallelShards, and the API's shard table.
 */
class ShardedRunTest {
    @TempDir
    Path dir;

    AxServer server;
    HttpServer service;
    final List<String> seen = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        service.createContext("/part", exchange -> {
            var h = exchange.getRequestHeaders();
            seen.add(h.getFirst("X-AX-Shard-Index") + "/" + h.getFirst("X-AX-Shard-Total") + " "
                    + h.getFirst("X-AX-Request-ID") + " attempt " + h.getFirst("X-AX-Attempt"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        service.start();
        server = AxServer.start(new ServerConfig(
                0,
                dir.resolve("data"),
                TestDatabases.h2(),
                List.of("default"),
                "admin-token",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO));
    }

    @AfterEach
    void stop() {
        server.close();
        service.stop(0);
    }

    long run(String name, Map<String, Object> action, Map<String, Object> policy) {
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                name,
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                action,
                                "policy",
                                policy),
                        "test");
        return server.node().tasks().trigger(name, Map.of(), Cause.EVENT, "test");
    }

    RunRow awaitEnd(long id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> instance(id).state().isTerminal());
        return instance(id);
    }

    RunRow instance(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }

    @Test
    void a_shell_shard_sees_its_index_and_total_and_has_its_own_log() throws Exception {
        Path out = dir.resolve("shards.txt");
        long id = run(
                "parts",
                Map.of(
                        "type",
                        "shell",
                        "command",
                        "echo \"$AX_SHARD_INDEX/$AX_SHARD_TOTAL $AX_REQUEST_ID\" >> " + out
                                + "; echo part-$AX_SHARD_INDEX"),
                Map.of("sharding", Map.of("shards", 3)));

        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(Files.readAllLines(out))
                .containsExactlyInAnyOrder(
                        "0/3 ax-" + id + ":shard-0", "1/3 ax-" + id + ":shard-1", "2/3 ax-" + id + ":shard-2");
        for (int shard = 0; shard < 3; shard++) {
            int s = shard;
            List<String> log = server.store().tx(tx -> server.store().logs().read(tx, id, s, 0, 100)).stream()
                    .map(l -> l.text())
                    .toList();
            assertThat(log).containsExactly("part-" + shard);
        }
        // The API shows the shards, and one shard's output.
        HttpClient http = HttpClient.newHttpClient();
        String view = http.send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/api/instances/" + id))
                                .header("Authorization", "Bearer admin-token")
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(view).contains("\"shards\":[{\"index\":0,\"total\":3,\"state\":\"SUCCESS\",\"attempt\":1");
        String log = http.send(
                        HttpRequest.newBuilder(
                                        URI.create(server.url() + "/api/instances/" + id + "/log?shard=1&format=text"))
                                .header("Authorization", "Bearer admin-token")
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(log).isEqualTo("part-1\n");
    }

    @Test
    void an_http_shard_sends_its_index_and_total_as_headers() {
        long id = run(
                "calls",
                Map.of(
                        "type",
                        "http",
                        "url",
                        "http://127.0.0.1:" + service.getAddress().getPort() + "/part"),
                Map.of("sharding", Map.of("shards", 2)));

        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(seen)
                .containsExactlyInAnyOrder(
                        "0/2 ax-" + id + ":shard-0 attempt 1", "1/2 ax-" + id + ":shard-1 attempt 1");
    }

    @Test
    void max_parallel_shards_one_runs_the_shards_one_after_another() throws Exception {
        Path out = dir.resolve("order.txt");
        long id = run(
                "serial",
                Map.of(
                        "type",
                        "shell",
                        "command",
                        "echo start-$AX_SHARD_INDEX >> " + out + "; sleep 0.3; echo end-$AX_SHARD_INDEX >> " + out),
                Map.of("sharding", Map.of("shards", 3, "maxParallelShards", 1)));

        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        // Alone in its group the executor would take every shard at once; the limit makes them strictly sequential.
        assertThat(Files.readAllLines(out)).containsExactly("start-0", "end-0", "start-1", "end-1", "start-2", "end-2");
        List<ShardRow> shards = server.store().tx(tx -> server.store().shards().ofRun(tx, id));
        assertThat(shards).extracting(ShardRow::state).containsOnly(ShardState.SUCCESS);
        for (int i = 1; i < shards.size(); i++) {
            assertThat(shards.get(i).startedAt())
                    .isAfterOrEqualTo(shards.get(i - 1).finishedAt());
        }
    }

    @Test
    void an_async_http_shard_is_completed_by_its_service() {
        service.createContext("/later", exchange -> {
            seen.add(exchange.getRequestHeaders().getFirst("X-AX-Shard-Index"));
            exchange.sendResponseHeaders(202, -1);
            exchange.close();
        });
        long id = run(
                "async_parts",
                Map.of(
                        "type",
                        "http",
                        "url",
                        "http://127.0.0.1:" + service.getAddress().getPort() + "/later",
                        "async",
                        true),
                Map.of("sharding", Map.of("shards", 2)));
        await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() == 2);

        assertThat(server.node()
                        .dispatcher()
                        .completeFromService(id, 0, 7, true, 200, "wrong attempt", "svc")
                        .accepted())
                .isFalse();
        assertThat(server.node()
                        .dispatcher()
                        .completeFromService(id, 0, 1, true, 200, "part 0 done", "svc")
                        .accepted())
                .isTrue();
        assertThat(instance(id).state()).isEqualTo(RunState.RUNNING);
        assertThat(server.node()
                        .dispatcher()
                        .completeFromService(id, 1, 1, true, 200, "part 1 done", "svc")
                        .accepted())
                .isTrue();
        assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
    }

    @Test
    void a_shard_out_of_retries_fails_the_run_and_the_other_shards_processes_end() throws Exception {
        // Shard 1 fails (twice) once the other two are up and have written their pids.
        String others = "[ -f " + dir.resolve("pid-0") + " ] && [ -f " + dir.resolve("pid-2") + " ]";
        long id = run(
                "one_bad",
                Map.of(
                        "type",
                        "shell",
                        "command",
                        "if [ \"$AX_SHARD_INDEX\" = 1 ]; then until " + others
                                + "; do sleep 0.1; done; exit 3; fi; echo $$ > " + dir.resolve("pid-")
                                + "$AX_SHARD_INDEX; sleep 120"),
                Map.of("maxRetries", 1, "retryIntervalSeconds", 0, "sharding", Map.of("shards", 3)));

        RunRow run = awaitEnd(id);
        assertThat(run.state()).isEqualTo(RunState.FAILED);
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.message())
                .startsWith("shard 1/3 failed after 2 attempts: exited with code 3")
                .contains("shard 1 FAILED (2 attempts)");
        List<ShardRow> shards = server.store().tx(tx -> server.store().shards().ofRun(tx, id));
        assertThat(shards)
                .extracting(ShardRow::state)
                .containsExactly(ShardState.STOPPED, ShardState.FAILED, ShardState.STOPPED);
        // The sleeping shards were running: their executor kills them at its next heartbeat.
        List<Long> pids = List.of(
                Long.parseLong(Files.readString(dir.resolve("pid-0")).strip()),
                Long.parseLong(Files.readString(dir.resolve("pid-2")).strip()));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> pids.stream()
                        .noneMatch(pid -> ProcessHandle.of(pid)
                                .map(ProcessHandle::isAlive)
                                .orElse(false)));
    }
}
