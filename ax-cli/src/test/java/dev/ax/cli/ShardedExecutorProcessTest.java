package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.domain.run.ShardState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
import dev.ax.store.ShardRow;
import dev.ax.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sharded runs on PostgreSQL with a real server and real {@code ax executor} processes running
 * real shells: shards spread over both executors, a failing shard retries alone, SIGKILL of an
 * executor holding a shard retries only that shard, terminate kills every shard's process.
 */
class ShardedExecutorProcessTest {
    @TempDir
    Path dir;

    final List<Process> processes = new ArrayList<>();
    AxServer server;

    @AfterEach
    void cleanUp() {
        processes.forEach(Process::destroyForcibly);
        if (server != null) {
            server.close();
        }
    }

    void startServer() {
        ServerConfig cfg = new ServerConfig(
                0,
                dir.resolve("data"),
                TestDatabases.postgres(),
                List.of(),
                "test-admin-token",
                "node-1",
                SchedulerConfig.DEFAULT.withLeaseMillis(3000),
                Duration.ZERO);
        server = AxServer.start(cfg);
    }

    Process executor(String id) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "executor",
                        "--server",
                        server.url().toString(),
                        "--token",
                        server.adminToken(),
                        "--group",
                        "default",
                        "--id",
                        id,
                        "--concurrency",
                        "4")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(id + ".log").toFile());
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    /** Both executors registered and live, so that shards can spread over them. */
    void awaitLive(String... ids) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> server.store()
                        .tx(tx -> server.store().executors().liveInGroup(tx, "default", 10_000))
                        .containsAll(List.of(ids)));
    }

    long trigger(String name, String command, Map<String, Object> policy) {
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                name,
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", command),
                                "policy",
                                policy),
                        "test");
        return server.node().tasks().trigger(name, Map.of(), Cause.EVENT, "test");
    }

    RunRow instance(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }

    List<ShardRow> shards(long id) {
        return server.store().tx(tx -> server.store().shards().ofRun(tx, id));
    }

    List<EventRow> events(long id) {
        return server.store().tx(tx -> server.store().events().forRun(tx, id, 0, 1000));
    }

    /** Lines of the runs file per shard index: "index attempt" per process started. */
    static Map<String, List<String>> byShard(Path runs) throws Exception {
        return Files.readAllLines(runs).stream()
                .collect(Collectors.groupingBy(
                        l -> l.split(" ")[0],
                        TreeMap::new,
                        Collectors.mapping(l -> l.split(" ")[1], Collectors.toList())));
    }

    @Test
    void four_shards_on_two_executor_processes_where_one_shard_fails_twice_then_succeeds() throws Exception {
        startServer();
        executor("exec-a");
        executor("exec-b");
        awaitLive("exec-a", "exec-b");
        Path runs = dir.resolve("runs");
        Files.createFile(runs);
        // Every process appends one line; shard 2 fails its first two attempts. The sleep keeps shards side by side.
        String command = "echo \"$AX_SHARD_INDEX $AX_ATTEMPT\" >> " + runs + "; "
                + "if [ \"$AX_SHARD_INDEX\" = 2 ] && [ \"$AX_ATTEMPT\" -lt 3 ]; then echo failing >&2; exit 1; fi; sleep 1; echo done";
        long id = trigger(
                "four_parts",
                command,
                Map.of("maxRetries", 2, "retryIntervalSeconds", 0, "sharding", Map.of("shards", 4)));

        await().atMost(Duration.ofSeconds(90)).until(() -> instance(id).state().isTerminal());

        RunRow run = instance(id);
        assertThat(run.state()).isEqualTo(RunState.SUCCESS);
        assertThat(run.attempt()).isEqualTo(1);
        // The three good shards ran exactly once; shard 2 three times.
        assertThat(byShard(runs))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("0", List.of("1"), "1", List.of("1"), "2", List.of("1", "2", "3"), "3", List.of("1")));
        List<ShardRow> shards = shards(id);
        assertThat(shards).extracting(ShardRow::state).containsOnly(ShardState.SUCCESS);
        assertThat(shards).extracting(ShardRow::attempt).containsExactly(1, 1, 3, 1);
        List<EventRow> events = events(id);
        // Spread: both executor processes ran shards.
        Set<Object> claimedBy = events.stream()
                .filter(e -> e.type() == EventType.SHARD_CLAIMED)
                .map(e -> e.data().get("executor"))
                .collect(Collectors.toSet());
        assertThat(claimedBy).containsExactlyInAnyOrder("exec-a", "exec-b");
        // The story of every shard is in the events.
        Map<Object, List<EventType>> story = new HashMap<>();
        events.stream()
                .filter(e -> e.data() != null
                        && e.data().containsKey("shard")
                        && e.type().name().startsWith("SHARD_"))
                .forEach(e -> story.computeIfAbsent(e.data().get("shard"), k -> new ArrayList<>())
                        .add(e.type()));
        for (int shard : List.of(0, 1, 3)) {
            assertThat(story.get(shard))
                    .containsExactly(EventType.SHARD_CLAIMED, EventType.SHARD_STARTED, EventType.SHARD_SUCCEEDED);
        }
        assertThat(story.get(2))
                .containsExactly(
                        EventType.SHARD_CLAIMED,
                        EventType.SHARD_STARTED,
                        EventType.SHARD_RETRY_SCHEDULED,
                        EventType.SHARD_CLAIMED,
                        EventType.SHARD_STARTED,
                        EventType.SHARD_RETRY_SCHEDULED,
                        EventType.SHARD_CLAIMED,
                        EventType.SHARD_STARTED,
                        EventType.SHARD_SUCCEEDED);
        EventRow last = events.getLast();
        assertThat(last.type()).isEqualTo(EventType.SUCCEEDED);
        assertThat(last.message()).isEqualTo("all 4 shards succeeded (6 shard attempts)");
        assertThat(last.data().get("shards")).asList().hasSize(4);
        List<String> shard2Log = server.store().tx(tx -> server.store().logs().read(tx, id, 2, 0, 100)).stream()
                .map(l -> l.text())
                .toList();
        assertThat(shard2Log).containsExactly("failing", "failing", "done");
    }

    @Test
    void a_sigkilled_executor_holding_a_shard_loses_only_that_shard() throws Exception {
        startServer();
        Process doomed = executor("doomed");
        executor("healthy");
        awaitLive("doomed", "healthy");
        Path runs = dir.resolve("runs");
        Files.createFile(runs);
        // First attempts take a while (the kill lands meanwhile); a retry finishes at once.
        String command = "echo \"$AX_SHARD_INDEX $AX_ATTEMPT\" >> " + runs
                + "; if [ \"$AX_ATTEMPT\" = 1 ]; then sleep 4; fi; echo done";
        long id = trigger(
                "two_parts",
                command,
                Map.of("maxRetries", 1, "retryIntervalSeconds", 0, "sharding", Map.of("shards", 2)));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> shards(id).size() == 2 && shards(id).stream().allMatch(s -> s.pid() != null));
        List<ShardRow> started = shards(id);
        assertThat(started).extracting(ShardRow::executorId).containsExactlyInAnyOrder("doomed", "healthy");
        int lostShard = started.stream()
                .filter(s -> s.executorId().equals("doomed"))
                .findFirst()
                .orElseThrow()
                .index();

        doomed.destroyForcibly().waitFor(); // SIGKILL: no goodbye, no report; its shell lives on as an orphan

        await().atMost(Duration.ofSeconds(60)).until(() -> instance(id).state().isTerminal());
        assertThat(instance(id).state()).isEqualTo(RunState.SUCCESS);
        ShardRow lost = shards(id).get(lostShard);
        ShardRow kept = shards(id).get(1 - lostShard);
        assertThat(lost.attempt()).isEqualTo(2);
        assertThat(lost.executorId()).isEqualTo("healthy");
        assertThat(kept.attempt()).isEqualTo(1);
        assertThat(kept.executorId()).isEqualTo("healthy");
        assertThat(byShard(runs))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        Integer.toString(1 - lostShard), List.of("1"), Integer.toString(lostShard), List.of("1", "2")));
        assertThat(events(id))
                .filteredOn(e -> e.type() == EventType.SHARD_LOST)
                .singleElement()
                .satisfies(e ->
                        assertThat(e.data()).containsEntry("shard", lostShard).containsEntry("executor", "doomed"));
    }

    @Test
    void broadcast_gives_each_live_executor_a_shard_and_terminate_kills_every_shard_process() throws Exception {
        startServer();
        executor("exec-a");
        executor("exec-b");
        awaitLive("exec-a", "exec-b");
        String command = "echo $$ > " + dir.resolve("pid-") + "$AX_SHARD_INDEX; sleep 120";
        long id = trigger("everywhere", command, Map.of("sharding", Map.of("mode", "broadcast")));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Files.exists(dir.resolve("pid-0"))
                        && Files.exists(dir.resolve("pid-1"))
                        && shards(id).size() == 2
                        && shards(id).stream().allMatch(s -> s.pid() != null));
        assertThat(shards(id))
                .hasSize(2)
                .extracting(ShardRow::executorId)
                .containsExactlyInAnyOrder("exec-a", "exec-b");
        List<Long> pids = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            pids.add(Long.parseLong(Files.readString(dir.resolve("pid-" + i)).strip()));
        }
        assertThat(pids)
                .allSatisfy(pid -> assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                        .contains(true));

        server.node().runs().terminate(id, "ops", "stop everything");

        assertThat(instance(id).state()).isEqualTo(RunState.TERMINATED);
        assertThat(shards(id)).extracting(ShardRow::state).containsOnly(ShardState.STOPPED);
        // Each executor learns at its next heartbeat and kills its shard's process tree.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> pids.stream()
                        .noneMatch(pid -> ProcessHandle.of(pid)
                                .map(ProcessHandle::isAlive)
                                .orElse(false)));
    }
}
