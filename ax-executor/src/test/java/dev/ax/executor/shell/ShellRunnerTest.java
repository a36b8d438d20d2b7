package dev.ax.executor.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.executor.shell.OutputSink.Stream;
import dev.ax.executor.shell.ShellResult.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs real child processes (Linux: sh, setsid, sleep, seq, ps). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShellRunnerTest {

    private final ShellRunner runner = new ShellRunner(Duration.ofSeconds(5));
    private final List<Long> groupsToReap = new ArrayList<>();

    /** Never leave sleep 300s behind, even when an assertion failed. */
    @AfterEach
    void killLeftovers() throws Exception {
        for (long pgid : groupsToReap) {
            if (runningGroupMembers(pgid).isEmpty()) {
                continue; // gone: do not signal a group id that could have been reused
            }
            new ProcessBuilder("kill", "-s", "KILL", "--", "-" + pgid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start()
                    .waitFor();
        }
    }

    // ------------------------------------------------------------------------------------------------ basics

    @Test
    void deliversStdoutAndStderrInOrderAndExitsZero() throws Exception {
        Lines sink = new Lines();
        RunningShell shell = start(ShellCommand.of("echo one; echo uno >&2; echo two; echo dos >&2; echo three"), sink);

        ShellResult r = shell.await();

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isZero();
        assertThat(r.succeeded()).isTrue();
        assertThat(r.pid()).isEqualTo(shell.pid()).isPositive();
        assertThat(r.message()).isEqualTo("exited with code 0");
        assertThat(r.duration()).isPositive();
        assertThat(sink.stdout()).containsExactly("one", "two", "three");
        assertThat(sink.stderr()).containsExactly("uno", "dos");
    }

    @Test
    void reportsExitCode() throws Exception {
        ShellResult r =
                start(ShellCommand.of("echo failing; exit 3"), new Lines()).await();

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.succeeded()).isFalse();
        assertThat(r.message()).isEqualTo("exited with code 3");
    }

    @Test
    void signalFromOutsideIsExitedWith128PlusSignal() throws Exception {
        ShellResult r = start(ShellCommand.of("kill -KILL $$"), new Lines()).await();

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isEqualTo(128 + 9);
    }

    @Test
    void passesEnvironmentOnTopOfTheExecutorsOwn() throws Exception {
        Lines sink = new Lines();
        ShellCommand cmd = new ShellCommand(
                "echo \"$AX_INSTANCE_ID\"; echo \"$HOME\"; echo \"$PATH\"",
                Map.of("AX_INSTANCE_ID", "run-42", "HOME", "/ax/home"),
                null,
                null);

        ShellResult r = start(cmd, sink).await();

        assertThat(r.exitCode()).isZero();
        assertThat(sink.stdout()).containsExactly("run-42", "/ax/home", System.getenv("PATH"));
    }

    @Test
    void honoursWorkingDirectory(@TempDir Path dir) throws Exception {
        Lines sink = new Lines();
        Files.writeString(dir.resolve("marker.txt"), "here\n");

        ShellResult r = start(new ShellCommand("pwd; cat marker.txt", Map.of(), dir, null), sink)
                .await();

        assertThat(r.exitCode()).isZero();
        assertThat(sink.stdout()).containsExactly(dir.toRealPath().toString(), "here");
    }

    @Test
    void missingWorkingDirectoryIsStartFailed(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope");
        Lines sink = new Lines();

        RunningShell shell = runner.start(new ShellCommand("echo hi", Map.of(), missing, null), sink);
        ShellResult r = shell.await();

        assertThat(shell.pid()).isEqualTo(-1);
        assertThat(r.outcome()).isEqualTo(Outcome.START_FAILED);
        assertThat(r.exitCode()).isNull();
        assertThat(r.pid()).isEqualTo(-1);
        assertThat(r.message()).contains("working directory").contains(missing.toString());
        assertThat(sink.all()).isEmpty();
        shell.cancel("no-op"); // harmless
    }

    @Test
    void unstartableProcessIsStartFailed() throws Exception {
        ShellRunner broken = new ShellRunner(
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(10), List.of("/nonexistent/setsid"));

        ShellResult r = broken.start(ShellCommand.of("echo hi"), new Lines()).await();

        assertThat(r.outcome()).isEqualTo(Outcome.START_FAILED);
        assertThat(r.pid()).isEqualTo(-1);
        assertThat(r.message()).startsWith("cannot start: ").contains("/nonexistent/setsid");
    }

    @Test
    void stdinIsEmptySoReadingItDoesNotHang() throws Exception {
        Lines sink = new Lines();

        ShellResult r =
                start(ShellCommand.of("cat; read x; echo \"after $?\""), sink).await();

        assertThat(r.exitCode()).isZero();
        assertThat(sink.stdout()).containsExactly("after 1");
    }

    @Test
    void commandFinishingBeforeTheTimeoutIsExited() throws Exception {
        ShellResult r = start(new ShellCommand("echo hi", Map.of(), null, Duration.ofSeconds(30)), new Lines())
                .await();

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isZero();
        assertThat(r.duration()).isLessThan(Duration.ofSeconds(30));
    }

    @Test
    void rejectsNonPositiveTimeout() {
        assertThatThrownBy(() -> new ShellCommand("true", Map.of(), null, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------------ process group

    @Test
    void pidIsTheShellAndItsProcessGroupAndSessionLeader() throws Exception {
        Lines sink = new Lines();
        // The shell prints its own pid ($$), then pgrp and session (fields 5 and 6 of /proc/self/stat; comm "sh" has no
        // spaces), then waits so that we can also look at it from outside.
        RunningShell shell =
                start(ShellCommand.of("echo \"$$ $(cut -d' ' -f5,6 /proc/$$/stat)\"; echo ready; sleep 300"), sink);
        long pid = shell.pid();

        await().atMost(Duration.ofSeconds(10)).until(() -> sink.stdout().contains("ready"));
        assertThat(sink.stdout().get(0)).isEqualTo(pid + " " + pid + " " + pid);
        assertThat(ps("-o", "pgid=", "-p", Long.toString(pid)).trim()).isEqualTo(Long.toString(pid));
        // the child (sleep) is in the same group
        List<ProcessHandle> children =
                ProcessHandle.of(pid).orElseThrow().children().toList();
        assertThat(children).isNotEmpty();
        for (ProcessHandle child : children) {
            assertThat(ps("-o", "pgid=", "-p", Long.toString(child.pid())).trim())
                    .isEqualTo(Long.toString(pid));
        }

        shell.cancel("test done");
        assertThat(shell.await().outcome()).isEqualTo(Outcome.KILLED);
        assertTreeGone(pid, children);
    }

    @Test
    void timeoutKillsTheWholeTree() throws Exception {
        Lines sink = new Lines();
        // children, grandchildren and great-grandchildren, all sleeping
        String cmd = "sleep 300 & "
                + "sh -c 'sleep 300 & sleep 300 & wait' & "
                + "sh -c 'sh -c \"sleep 300 & wait\" & sleep 300 & wait' & "
                + "wait";
        RunningShell shell = start(new ShellCommand(cmd, Map.of(), null, Duration.ofSeconds(1)), sink);
        long pid = shell.pid();
        List<ProcessHandle> tree = recordDescendants(pid, 8); // sleep, sh, 2x sleep, sh, sh, sleep, sleep

        ShellResult r = shell.await();

        assertThat(r.outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(r.exitCode()).isNull();
        assertThat(r.pid()).isEqualTo(pid);
        assertThat(r.message()).isEqualTo("timed out after 1s; process group " + pid + " killed");
        assertThat(r.duration()).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(6));
        assertTreeGone(pid, tree);
    }

    @Test
    void childThatIgnoresTermIsKilledAfterTheGrace() throws Exception {
        ShellRunner shortGrace = new ShellRunner(Duration.ofMillis(300));
        // The ignored disposition is inherited by the sleeps, so nothing in this tree dies on SIGTERM.
        RunningShell shell = shortGrace.start(
                new ShellCommand("trap '' TERM; sleep 300 & sleep 300 & wait", Map.of(), null, Duration.ofSeconds(1)),
                new Lines());
        long pid = shell.pid();
        groupsToReap.add(pid);
        List<ProcessHandle> tree = recordDescendants(pid, 2);

        ShellResult r = shell.await();

        assertThat(r.outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(r.message())
                .isEqualTo("timed out after 1s; process group " + pid + " killed; SIGKILL after 300ms grace");
        assertThat(r.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(1300));
        assertTreeGone(pid, tree);
    }

    @Test
    void descendantThatLeftTheGroupIsKilledToo() throws Exception {
        // 'setsid sleep 300' runs in a forked child (not a group leader), so it gets a new session and group.
        RunningShell shell = start(ShellCommand.of("setsid sleep 300 & sleep 300 & wait"), new Lines());
        long pid = shell.pid();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> ProcessHandle.of(pid).stream()
                        .flatMap(ProcessHandle::descendants)
                        .anyMatch(h -> !pgid(h.pid()).equals(Long.toString(pid))
                                && !pgid(h.pid()).isEmpty()));
        List<ProcessHandle> tree = recordDescendants(pid, 2);
        List<Long> escaped = tree.stream()
                .map(ProcessHandle::pid)
                .filter(p -> !pgid(p).equals(Long.toString(pid)))
                .toList();
        assertThat(escaped).isNotEmpty();
        groupsToReap.addAll(escaped);

        shell.cancel("test");
        ShellResult r = shell.await();

        assertThat(r.outcome()).isEqualTo(Outcome.KILLED);
        assertTreeGone(pid, tree);
        for (long p : escaped) {
            assertThat(runningGroupMembers(p)).as("escaped group %d", p).isEmpty();
        }
    }

    @Test
    void cancelFromAnotherThreadKillsTheTree() throws Exception {
        Lines sink = new Lines();
        RunningShell shell = start(ShellCommand.of("echo started; sleep 300 & sh -c 'sleep 300 & wait' & wait"), sink);
        long pid = shell.pid();
        List<ProcessHandle> tree = recordDescendants(pid, 3);

        CompletableFuture.runAsync(() -> shell.cancel("operator asked")).get(10, TimeUnit.SECONDS);
        ShellResult r = shell.await();

        assertThat(r.outcome()).isEqualTo(Outcome.KILLED);
        assertThat(r.exitCode()).isNull();
        assertThat(r.message()).isEqualTo("cancelled: operator asked; process group " + pid + " killed");
        assertThat(sink.stdout()).containsExactly("started");
        assertTreeGone(pid, tree);

        shell.cancel("again"); // idempotent, result unchanged
        assertThat(shell.await()).isEqualTo(r);
    }

    @Test
    void cancelRightAfterStartKillsBeforeAnythingRuns() throws Exception {
        for (int i = 0; i < 10; i++) {
            RunningShell shell = start(ShellCommand.of("sleep 300"), new Lines());
            shell.cancel("immediately");
            ShellResult r = shell.await();
            assertThat(r.outcome()).isEqualTo(Outcome.KILLED);
            assertThat(runningGroupMembers(shell.pid())).isEmpty();
            assertThat(ProcessHandle.of(shell.pid()).map(ProcessHandle::isAlive))
                    .isNotEqualTo(Optional.of(true));
        }
    }

    @Test
    void shellHandlingTermGetsToCleanUpAndItsOutputIsKept() throws Exception {
        Lines sink = new Lines();
        RunningShell shell =
                start(ShellCommand.of("trap 'echo cleaning up; exit 7' TERM; echo ready; sleep 300 & wait"), sink);
        await().atMost(Duration.ofSeconds(10)).until(() -> sink.stdout().contains("ready"));

        shell.cancel("stop");
        ShellResult r = shell.await();

        assertThat(r.outcome()).isEqualTo(Outcome.KILLED);
        assertThat(r.message()).doesNotContain("SIGKILL");
        assertThat(sink.stdout()).containsExactly("ready", "cleaning up");
    }

    @Test
    void cancelRacingWithNormalExitNeverHangs() throws Exception {
        for (int i = 0; i < 20; i++) {
            RunningShell shell = start(ShellCommand.of("echo " + i), new Lines());
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Void>> cancels = IntStream.range(0, 4)
                    .mapToObj(n -> CompletableFuture.runAsync(() -> {
                        try {
                            go.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        shell.cancel("race " + n);
                    }))
                    .toList();
            go.countDown();
            CompletableFuture.allOf(cancels.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

            ShellResult r = shell.await();
            assertThat(r.outcome()).isIn(Outcome.EXITED, Outcome.KILLED);
            if (r.outcome() == Outcome.EXITED) {
                assertThat(r.exitCode()).isZero();
            } else {
                assertThat(r.exitCode()).isNull();
                assertThat(r.message()).startsWith("cancelled: race ");
            }
            assertThat(shell.await()).isEqualTo(r);
        }
    }

    @Test
    void cancelAfterExitIsANoOp() throws Exception {
        RunningShell shell = start(ShellCommand.of("exit 5"), new Lines());
        ShellResult r = shell.await();

        shell.cancel("too late");

        assertThat(shell.await()).isEqualTo(r);
        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isEqualTo(5);
    }

    // ------------------------------------------------------------------------------------------------ output

    @Test
    void backgroundGrandchildHoldingStdoutDoesNotMakeAwaitHang() throws Exception {
        Lines sink = new Lines();
        long t0 = System.nanoTime(); // duration only
        RunningShell shell = start(ShellCommand.of("(sleep 300 &) ; echo done"), sink);

        ShellResult r = shell.await();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isZero();
        assertThat(r.message()).startsWith("exited with code 0");
        assertThat(r.duration()).isLessThan(Duration.ofSeconds(2));
        assertThat(took).isLessThan(Duration.ofSeconds(5));
        assertThat(sink.stdout()).containsExactly("done");
        // the orphan is still there (we do not kill leftovers of a normal exit) -- the AfterEach reaps it
        assertThat(runningGroupMembers(shell.pid())).hasSize(1);
    }

    @Test
    void chattyBackgroundProcessIsCutOffAfterTheMaximumDrain() throws Exception {
        ShellRunner shortDrain = new ShellRunner(
                Duration.ofSeconds(5), Duration.ofMillis(200), Duration.ofSeconds(1), ShellRunner.defaultLauncher());
        Lines sink = new Lines();
        long t0 = System.nanoTime(); // duration only
        // The orphan writes every 50 ms, so the stream never goes quiet: only the hard drain limit ends the wait
        // (or the JDK closing the pipe at exit, if no read was in progress).
        RunningShell shell =
                shortDrain.start(ShellCommand.of("(while :; do echo tick; sleep 0.05; done &) ; echo done"), sink);
        groupsToReap.add(shell.pid());

        ShellResult r = shell.await();
        Duration took = Duration.ofNanos(System.nanoTime() - t0);

        assertThat(r.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.exitCode()).isZero();
        assertThat(took).isLessThan(Duration.ofSeconds(4));
        assertThat(sink.stdout()).contains("done");
        // nothing reaches the sink after await() returned
        int delivered = sink.all().size();
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(2))
                .until(() -> sink.all().size() == delivered);
    }

    @Test
    void largeOutputIsDeliveredCompletelyAndInOrder() throws Exception {
        Lines sink = new Lines();

        ShellResult r = start(ShellCommand.of("seq 1 50000 >&2 & seq 1 200000; wait"), sink)
                .await();

        assertThat(r.exitCode()).isZero();
        assertThat(sink.stdout())
                .isEqualTo(IntStream.rangeClosed(1, 200000)
                        .mapToObj(Integer::toString)
                        .toList());
        assertThat(sink.stderr())
                .isEqualTo(IntStream.rangeClosed(1, 50000)
                        .mapToObj(Integer::toString)
                        .toList());
    }

    @Test
    void finalLineWithoutNewlineAndEmptyLinesAreDelivered() throws Exception {
        Lines sink = new Lines();

        start(ShellCommand.of("printf 'a\\n\\nb\\r\\nc'; printf 'err' >&2"), sink)
                .await();

        assertThat(sink.stdout()).containsExactly("a", "", "b", "c");
        assertThat(sink.stderr()).containsExactly("err");
    }

    @Test
    void longLinesAreSplitAt64KiB() throws Exception {
        Lines sink = new Lines();

        start(ShellCommand.of("head -c 200000 /dev/zero | tr '\\0' a; echo; echo next"), sink)
                .await();

        List<String> out = sink.stdout();
        assertThat(out).extracting(String::length).containsExactly(65536, 65536, 65536, 200000 - 3 * 65536, 4);
        assertThat(out.get(4)).isEqualTo("next");
    }

    @Test
    void longLinesAreNotSplitInsideAMultiByteCharacter() throws Exception {
        Lines sink = new Lines();
        // 50000 euro signs (3 bytes each, 65536 is not a multiple of 3), built from octal escapes to stay locale-free.
        start(ShellCommand.of("yes \"$(printf '\\342\\202\\254')\" | head -n 50000 | tr -d '\\n'"), sink)
                .await();

        List<String> out = sink.stdout();
        assertThat(out).hasSizeGreaterThan(2);
        assertThat(out).allSatisfy(l -> {
            assertThat(l).doesNotContain("\uFFFD");
            assertThat(l.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(ShellRunner.MAX_LINE_BYTES);
        });
        assertThat(String.join("", out)).isEqualTo("\u20ac".repeat(50000));
    }

    @Test
    void failingSinkDoesNotStopTheRun() throws Exception {
        List<String> got = new ArrayList<>();
        OutputSink sink = (stream, line) -> {
            if (line.equals("2")) {
                throw new IllegalStateException("sink broke");
            }
            got.add(line);
        };

        ShellResult r = start(ShellCommand.of("seq 1 3"), sink).await();

        assertThat(r.exitCode()).isZero();
        assertThat(got).containsExactly("1", "3");
    }

    @Test
    void formatsDurations() {
        assertThat(ShellProcess.format(Duration.ofSeconds(2))).isEqualTo("2s");
        assertThat(ShellProcess.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
        assertThat(ShellProcess.format(Duration.ofMillis(300))).isEqualTo("300ms");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private RunningShell start(ShellCommand cmd, OutputSink sink) {
        RunningShell shell = runner.start(cmd, sink);
        if (shell.pid() > 0) {
            groupsToReap.add(shell.pid());
        }
        return shell;
    }

    /** Waits until the shell has at least {@code n} descendants and returns them. */
    private static List<ProcessHandle> recordDescendants(long pid, int n) {
        List<ProcessHandle> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    seen.clear();
                    ProcessHandle.of(pid).ifPresent(h -> h.descendants().forEach(seen::add));
                    return seen.size() >= n;
                });
        return List.copyOf(seen);
    }

    /** After await() returned: nothing of the group and none of the recorded descendants may still run. */
    private static void assertTreeGone(long pgid, List<ProcessHandle> recorded)
            throws IOException, InterruptedException {
        assertThat(runningGroupMembers(pgid))
                .as("running members of process group %d", pgid)
                .isEmpty();
        for (ProcessHandle h : recorded) {
            assertThat(running(h))
                    .as("recorded descendant %d still running: %s", h.pid(), procStat(h.pid()))
                    .isFalse();
        }
        assertThat(ProcessHandle.of(pgid).map(ProcessHandle::isAlive).orElse(false))
                .as("shell")
                .isFalse();
    }

    /** Non-zombie processes of a group, as {@code ps} sees them (independent of the code under test). */
    private static List<String> runningGroupMembers(long pgid) throws IOException, InterruptedException {
        List<String> members = new ArrayList<>();
        for (String row : ps("-e", "-o", "pid=,pgid=,stat=,args=").split("\n")) {
            String[] f = row.trim().split("\\s+", 4);
            if (f.length >= 3 && f[1].equals(Long.toString(pgid)) && !f[2].startsWith("Z")) {
                members.add(row.trim());
            }
        }
        return members;
    }

    /**
     * Alive and not a zombie. Killed processes re-parented to an init that does not reap (as in some containers) stay
     * zombies, which ProcessHandle still reports as alive.
     */
    private static boolean running(ProcessHandle h) {
        if (!h.isAlive()) {
            return false;
        }
        String stat = procStat(h.pid());
        int close = stat.lastIndexOf(')');
        return close > 0 && stat.length() > close + 2 && stat.charAt(close + 2) != 'Z';
    }

    private static String procStat(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/stat"));
        } catch (IOException e) {
            return "(no /proc entry)";
        }
    }

    private static String pgid(long pid) {
        try {
            return ps("-o", "pgid=", "-p", Long.toString(pid)).trim();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String ps(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>();
        argv.add("ps");
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    /** Collects lines; thread-safe. */
    static final class Lines implements OutputSink {
        private final List<String> out = new ArrayList<>();
        private final List<String> err = new ArrayList<>();
        private final List<String> all = new ArrayList<>();

        @Override
        public synchronized void line(Stream stream, String line) {
            (stream == Stream.STDOUT ? out : err).add(line);
            all.add(stream + ":" + line);
        }

        synchronized List<String> stdout() {
            return List.copyOf(out);
        }

        synchronized List<String> stderr() {
            return List.copyOf(err);
        }

        synchronized List<String> all() {
            return List.copyOf(all);
        }
    }
}
