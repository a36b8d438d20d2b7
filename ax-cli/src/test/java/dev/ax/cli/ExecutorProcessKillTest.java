package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.InstanceState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.InstanceRow;
import dev.ax.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An executor process killed with SIGKILL mid-run: its lease expires, the attempt fails as
 * EXECUTOR_LOST, and the retry runs on another executor process. Not lost, not stuck RUNNING.
 */
class ExecutorProcessKillTest {
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

    Process executor(String id) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "executor", "--server", server.url().toString(), "--token", server.adminToken(), "--group", "default", "--id", id)
                .redirectErrorStream(true).redirectOutput(dir.resolve(id + ".log").toFile());
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    @Test
    void a_sigkilled_executor_process_loses_its_run_to_another_executor() throws Exception {
        ServerConfig cfg = new ServerConfig(0, dir.resolve("data"), TestDatabases.postgres(), List.of(), "test-admin-token",
                "node-1", SchedulerConfig.DEFAULT.withLeaseMillis(3000), Duration.ZERO);
        server = AxServer.start(cfg);
        Path marker = dir.resolve("attempts");
        Files.createFile(marker);
        // The first attempt hangs (its executor will be killed); the second finishes at once.
        String command = "echo $AX_ATTEMPT >> " + marker + "; if [ \"$AX_ATTEMPT\" = 1 ]; then sleep 20; fi; echo done-$AX_ATTEMPT";
        server.node().tasks().create(Map.of("taskName", "fragile", "trigger", Map.of("type", "event"),
                "action", Map.of("type", "shell", "command", command),
                "policy", Map.of("maxRetries", 1, "retryIntervalSeconds", 0)), "test");

        Process doomed = executor("doomed");
        long id = server.node().tasks().trigger("fragile", Map.of(), Cause.EVENT, "test");
        await().atMost(Duration.ofSeconds(30)).until(() -> instance(id).pid() != null);
        assertThat(instance(id).executorId()).isEqualTo("doomed");

        doomed.destroyForcibly().waitFor(); // SIGKILL: no goodbye, no report
        // The killed executor's shell lives on as an orphan until its sleep ends; it wrote its marker line already.

        executor("healthy");
        await().atMost(Duration.ofSeconds(60)).until(() -> instance(id).state().isTerminal());
        InstanceRow run = instance(id);
        assertThat(run.state()).isEqualTo(InstanceState.SUCCESS);
        assertThat(run.attempt()).isEqualTo(2);
        assertThat(run.executorId()).isEqualTo("healthy");
        List<EventType> events = server.store().tx(tx -> server.store().events().forInstance(tx, id, 0, 100))
                .stream().map(EventRow::type).toList();
        assertThat(events).containsSubsequence(EventType.CLAIMED, EventType.STARTED, EventType.EXECUTOR_LOST,
                EventType.RETRY_READY, EventType.CLAIMED, EventType.STARTED, EventType.SUCCEEDED);
        assertThat(Files.readAllLines(marker)).containsExactly("1", "2");
    }

    InstanceRow instance(long id) {
        return server.store().tx(tx -> server.store().instances().find(tx, id).orElseThrow());
    }
}
