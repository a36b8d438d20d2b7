package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.EventType;
import dev.ax.domain.run.RunState;
import dev.ax.executor.os.Procs;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.EventRow;
import dev.ax.store.RunRow;
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
 * Executor processes that die or stall mid-run. Their runs are lost and retried elsewhere, never stuck RUNNING — and
 * their job bodies never outlive the executor's hold on them: SIGKILL of the executor kills the job's process tree at
 * once (its reaper sees the executor go), a stopped executor's tree is killed before its lease runs out, and a run
 * cut off this way never finishes beside its retry.
 */
class ExecutorProcessKillTest {
    @TempDir
    Path dir;

    final List<Process> processes = new ArrayList<>();
    AxServer server;
    Path marker;
    Path pids;

    @AfterEach
    void cleanUp() {
        processes.forEach(p -> {
            p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        });
        if (server != null) {
            server.close();
        }
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
                        id)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve(id + ".log").toFile()));
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    /** A task whose first attempt starts a long body (it records its process group) and whose retry ends at once. */
    long startFragileRun(long leaseMillis) throws Exception {
        ServerConfig cfg = new ServerConfig(
                0,
                dir.resolve("data"),
                TestDatabases.postgres(),
                List.of(),
                "test-admin-token",
                "node-1",
                SchedulerConfig.DEFAULT.withLeaseMillis(leaseMillis),
                Duration.ZERO);
        server = AxServer.start(cfg);
        marker = dir.resolve("attempts");
        pids = dir.resolve("pids");
        Files.createFile(marker);
        // The first attempt's body takes 20 s and records that it finished; the second finishes at once.
        String command = "echo $AX_ATTEMPT >> " + marker + "; echo $$ >> " + pids
                + "; if [ \"$AX_ATTEMPT\" = 1 ]; then sleep 20; fi;" + " echo end-$AX_ATTEMPT >> " + marker;
        server.node()
                .tasks()
                .create(
                        Map.of(
                                "taskName",
                                "fragile",
                                "trigger",
                                Map.of("type", "event"),
                                "action",
                                Map.of("type", "shell", "command", command),
                                "policy",
                                Map.of("maxRetries", 1, "retryIntervalSeconds", 0)),
                        "test");
        return server.node().tasks().trigger("fragile", Map.of(), Cause.EVENT, "test");
    }

    /** The first attempt's shell, once it started. */
    long firstBody(long id) throws Exception {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> instance(id).pid() != null
                        && Files.exists(pids)
                        && !Files.readAllLines(pids).isEmpty());
        return Long.parseLong(Files.readAllLines(pids).getFirst().strip());
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                && Procs.stat(pid).map(Procs.Stat::running).orElse(false);
    }

    /** The retry ran on {@code healthy} after the first attempt was lost; the first body never finished. */
    void assertRetriedElsewhereAndNeverTwice(long id, String healthy) throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> instance(id).state().isTerminal());
        RunRow run = instance(id);
        assertThat(run.state()).isEqualTo(RunState.SUCCESS);
        assertThat(run.attempt()).isEqualTo(2);
        assertThat(run.executorId()).isEqualTo(healthy);
        List<EventType> events = server.store().tx(tx -> server.store().events().forRun(tx, id, 0, 100)).stream()
                .map(EventRow::type)
                .toList();
        assertThat(events)
                .containsSubsequence(
                        EventType.CLAIMED,
                        EventType.STARTED,
                        EventType.EXECUTOR_LOST,
                        EventType.RETRY_READY,
                        EventType.CLAIMED,
                        EventType.STARTED,
                        EventType.SUCCEEDED);
        assertThat(Files.readAllLines(marker)).containsExactly("1", "2", "end-2");
    }

    @Test
    void a_sigkilled_executors_job_dies_with_it_and_its_run_is_retried_elsewhere() throws Exception {
        long id = startFragileRun(3000);
        Process doomed = executor("doomed");
        long body = firstBody(id);
        assertThat(instance(id).executorId()).isEqualTo("doomed");

        doomed.destroyForcibly().waitFor(); // SIGKILL: no goodbye, no report
        await().atMost(Duration.ofSeconds(3)).until(() -> !alive(body));

        executor("healthy");
        assertRetriedElsewhereAndNeverTwice(id, "healthy");
    }

    @Test
    void a_stopped_executors_job_is_killed_before_its_lease_runs_out() throws Exception {
        long leaseMillis = 3000;
        long id = startFragileRun(leaseMillis);
        Process stalled = executor("stalled");
        long body = firstBody(id);

        long stoppedAt = System.nanoTime();
        new ProcessBuilder("kill", "-STOP", Long.toString(stalled.pid()))
                .start()
                .waitFor(); // a stopped JVM runs no code
        // Its reaper kills the body two thirds of a lease after the last renewal: before the server may pass the run
        // on.
        await().atMost(Duration.ofMillis(leaseMillis)).until(() -> !alive(body));
        assertThat(instance(id).state())
                .as("the server has not passed the run on yet")
                .isEqualTo(RunState.RUNNING);
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(Duration.ofMillis(leaseMillis));

        executor("healthy");
        assertRetriedElsewhereAndNeverTwice(id, "healthy");
        new ProcessBuilder("kill", "-CONT", Long.toString(stalled.pid()))
                .start()
                .waitFor();
        // Woken, it learns its run is gone and starts nothing more of it.
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(4))
                .until(() -> Files.readAllLines(marker).size() == 3);
    }

    @Test
    void an_executor_back_under_the_same_name_loses_its_earlier_runs_at_once_and_kills_what_was_left()
            throws Exception {
        long id = startFragileRun(30_000);
        Process first = executor("same");
        long body = firstBody(id);
        // Both the executor and its reaper die, so nothing killed the body: the next life must. (Stopped first, so
        // that it cannot start another reaper when it sees this one go.)
        new ProcessBuilder("kill", "-STOP", Long.toString(first.pid())).start().waitFor();
        for (ProcessHandle reaper : first.toHandle()
                .descendants()
                .filter(h -> h.info().commandLine().orElse("").contains("ReaperMain"))
                .toList()) {
            reaper.destroyForcibly();
            reaper.onExit().get();
        }
        first.destroyForcibly().waitFor();
        assertThat(alive(body)).isTrue();

        long restartedAt = System.nanoTime();
        executor("same");
        await().atMost(Duration.ofSeconds(10)).until(() -> !alive(body));
        assertRetriedElsewhereAndNeverTwice(id, "same");
        assertThat(Duration.ofNanos(System.nanoTime() - restartedAt))
                .as("well inside the 30 s lease")
                .isLessThan(Duration.ofSeconds(20));
        assertThat(server.store().tx(tx -> server.store().events().forRun(tx, id, 0, 100)).stream()
                        .filter(e -> e.type() == EventType.EXECUTOR_LOST)
                        .findFirst()
                        .orElseThrow()
                        .message())
                .contains("restarted");
    }

    RunRow instance(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }
}
