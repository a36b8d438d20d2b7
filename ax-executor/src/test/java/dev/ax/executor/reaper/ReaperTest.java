package dev.ax.executor.reaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.RunRef;
import dev.ax.executor.os.Procs;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reaper process against real process trees: a run whose lease was not renewed in time is killed, processes that
 * left its group with it; a renewed one lives; the executor's end kills what it held; runs of an earlier life that the
 * server declared lost are killed, and nobody else's.
 */
class ReaperTest {
    private final List<Reaper> reapers = new ArrayList<>();
    private final List<Long> spawned = new ArrayList<>();
    private final List<RunRef> killed = new CopyOnWriteArrayList<>();

    @AfterEach
    void cleanUp() {
        reapers.forEach(Reaper::close);
        spawned.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    private Reaper reaper(String executorId, String session) throws IOException {
        Reaper r = Reaper.start(executorId, session, killed::add);
        reapers.add(r);
        return r;
    }

    /** A run's process tree as a shell action makes it: its own session, a child in the group and one that left it. */
    private record Tree(long pgid, long escapee) {}

    private Tree tree(String marker) throws Exception {
        File pidFile = File.createTempFile("escapee", ".pid");
        pidFile.deleteOnExit();
        ProcessBuilder pb = new ProcessBuilder(
                        "setsid",
                        "sh",
                        "-c",
                        "sleep 60 & setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 61' & wait")
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put(Reaper.MARKER_ENV, marker);
        long pgid = pb.start().pid();
        spawned.add(pgid);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> Files.readString(pidFile.toPath()).strip().matches("\\d+"));
        long escapee = Long.parseLong(Files.readString(pidFile.toPath()).strip());
        spawned.add(escapee);
        return new Tree(pgid, escapee);
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
                && Procs.stat(pid).map(Procs.Stat::running).orElse(false);
    }

    private static long in(Duration d) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(d.toMillis());
    }

    @Test
    void a_run_not_renewed_in_time_is_killed_with_what_left_its_group_and_the_executor_is_told() throws Exception {
        Reaper reaper = reaper("exec-1", "life-1");
        RunRef run = new RunRef(7, 1);
        Tree tree = tree(reaper.marker(run));
        reaper.track(run, tree.pgid(), in(Duration.ofMillis(300)));

        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(tree.pgid()) && !alive(tree.escapee()));
        await().atMost(Duration.ofSeconds(5)).until(() -> killed.contains(run));
        assertThat(reaper.release(run))
                .as("its end says it was killed, not that it ended")
                .isTrue();
    }

    @Test
    void a_shell_that_ended_by_itself_is_released_as_ended() throws Exception {
        Reaper reaper = reaper("exec-1", "life-1");
        RunRef run = new RunRef(13, 1);
        ProcessBuilder pb = new ProcessBuilder("setsid", "sh", "-c", "true");
        pb.environment().put(Reaper.MARKER_ENV, reaper.marker(run));
        Process shell = pb.start();
        reaper.track(run, shell.pid(), in(Duration.ofMinutes(5)));
        shell.waitFor();
        assertThat(reaper.release(run)).isFalse();
        assertThat(killed).isEmpty();
    }

    @Test
    void a_run_renewed_in_time_lives_on() throws Exception {
        Reaper reaper = reaper("exec-1", "life-1");
        RunRef run = new RunRef(8, 2, 3);
        Tree tree = tree(reaper.marker(run));
        reaper.track(run, tree.pgid(), in(Duration.ofMillis(400)));
        ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor();
        try {
            heartbeat.scheduleAtFixedRate(
                    () -> reaper.renew(List.of(run), in(Duration.ofMillis(400))), 100, 100, TimeUnit.MILLISECONDS);
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(3))
                    .until(() -> alive(tree.pgid()) && alive(tree.escapee()));
        } finally {
            heartbeat.shutdownNow();
        }
        assertThat(killed).isEmpty();
    }

    @Test
    void when_its_executor_goes_the_runs_it_held_are_killed_and_those_it_released_live_on() throws Exception {
        Reaper reaper = reaper("exec-1", "life-1");
        RunRef held = new RunRef(9, 1);
        RunRef released = new RunRef(10, 1);
        Tree heldTree = tree(reaper.marker(held));
        Tree releasedTree = tree(reaper.marker(released));
        reaper.track(held, heldTree.pgid(), in(Duration.ofMinutes(5)));
        reaper.track(released, releasedTree.pgid(), in(Duration.ofMinutes(5)));
        reaper.release(released); // its shell ended; what it left running is cron-like, not the reaper's

        reaper.close(); // the executor's end of the pipe closes, as when it is killed

        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(heldTree.pgid()) && !alive(heldTree.escapee()));
        assertThat(alive(releasedTree.pgid())).isTrue();
        assertThat(alive(releasedTree.escapee())).isTrue();
    }

    @Test
    void runs_of_an_earlier_life_declared_lost_are_killed_and_nobody_elses() throws Exception {
        RunRef lost = new RunRef(11, 1);
        Tree earlier = tree("life-0 " + Reaper.key(lost) + " exec-1");
        Tree otherExecutor = tree("life-0 " + Reaper.key(lost) + " exec-2");
        Tree notLost = tree("life-0 12:1 exec-1");

        reaper("exec-1", "life-1").killEarlierLives(Set.of(lost));

        await().atMost(Duration.ofSeconds(5)).until(() -> !alive(earlier.pgid()) && !alive(earlier.escapee()));
        assertThat(alive(otherExecutor.pgid())).isTrue();
        assertThat(alive(notLost.pgid())).isTrue();
    }
}
