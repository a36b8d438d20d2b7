package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.RunRow;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stopping real processes: REPLACE and terminate reach the process tree through the executor's heartbeat. */
class RunControlTest {
    @TempDir
    Path dir;

    AxServer server;

    @BeforeEach
    void start() {
        server = AxServer.start(new ServerConfig(
                0,
                dir,
                TestDatabases.h2(),
                List.of("default"),
                "test-token",
                "node-1",
                SchedulerConfig.DEFAULT.withLeaseMillis(3000),
                Duration.ZERO));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    RunRow run(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    long startLongRun(String task, Map<String, Object> policy) {
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                task,
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", "sleep 120 & sleep 120; wait"),
                                "policy",
                                policy),
                        "test");
        long id = server.node().tasks().trigger(task, Map.of(), Cause.EVENT, "test");
        await().atMost(Duration.ofSeconds(15)).until(() -> run(id).pid() != null);
        return id;
    }

    @Test
    void replace_terminates_the_running_run_and_its_processes_are_gone() {
        long old = startLongRun("replaceable", Map.of("overflow", "REPLACE"));
        long pid = run(old).pid();
        List<Long> children = ProcessHandle.of(pid)
                .orElseThrow()
                .descendants()
                .map(ProcessHandle::pid)
                .toList();
        assertThat(children).isNotEmpty();

        long fresh = server.node().tasks().trigger("replaceable", Map.of(), Cause.EVENT, "test");
        assertThat(run(old).state()).isEqualTo(RunState.TERMINATED);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> !alive(pid) && children.stream().noneMatch(RunControlTest::alive));
        await().atMost(Duration.ofSeconds(15)).until(() -> run(fresh).state() == RunState.RUNNING);
    }

    @Test
    void terminate_kills_the_process_tree_of_a_running_run() {
        long id = startLongRun("stoppable", Map.of());
        long pid = run(id).pid();
        List<Long> children = ProcessHandle.of(pid)
                .orElseThrow()
                .descendants()
                .map(ProcessHandle::pid)
                .toList();
        server.node().runs().terminate(id, "ops", "runaway");
        await().atMost(Duration.ofSeconds(15))
                .until(() -> !alive(pid) && children.stream().noneMatch(RunControlTest::alive));
        assertThat(run(id).state()).isEqualTo(RunState.TERMINATED);
    }
}
