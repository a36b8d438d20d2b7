package dev.ax.executor.reaper;

import dev.ax.executor.os.Procs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * What the reaper process does (see {@link ReaperMain}): keeps each run's process group and the moment its lease
 * may no longer be counted on, and kills what must not outlive its executor's hold on it.
 *
 * <p>Lines it reads from the executor (one per line, space-separated):
 * <pre>
 *   T key pgid millis     a run's process group started; kill it unless renewed within millis
 *   R millis key...       these runs' leases were renewed: kill them unless renewed again within millis
 *   E key                 the run's shell ended; forget it (answered "E key killed" if the reaper had killed it,
 *                         else "E key ok": the executor must not report the outcome of a run it could not vouch for)
 *   L key...              runs an earlier life of this executor held, which the server declared lost: kill what of
 *                         them still runs
 * </pre>
 * and what it writes back: {@code ready} once it watches, {@code K key reason} for each run it killed.
 *
 * <p>A kill takes the run's process group (one {@code kill -KILL -pgid}, if a member still carries the run's marker:
 * a group id is reused once the group is gone) and every process that carries the run's marker in its environment
 * ({@link Reaper#MARKER_ENV}), which finds the ones that left the group ({@code setsid}, daemons).
 */
final class ReaperLoop {
    /** How often deadlines are looked at: the reaper kills at most this late. */
    static final long TICK_MILLIS = 100;

    private record Tracked(long pgid, long deadlineNanos) {}

    private final String executorId;
    private final String session;
    private final PrintStream out;
    private final LongSupplier nanos;
    private final Map<String, Tracked> runs = new ConcurrentHashMap<>();
    /** The runs killed lately, for the executor's "E" that may cross the kill; a few hundred at most. */
    private final Set<String> killed = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > 1000;
        }
    });

    ReaperLoop(String executorId, String session, PrintStream out, LongSupplier nanos) {
        this.executorId = executorId;
        this.session = session;
        this.out = out;
        this.nanos = nanos;
    }

    /**
     * Watches until the executor's end of {@code in} closes, then kills the processes of every run it still holds.
     * (What a run that ended left running on purpose, a daemon it started, goes on, as it would under cron.)
     */
    void run(BufferedReader in) throws IOException {
        Thread timer = Thread.ofPlatform().daemon().name("ax-reaper-timer").start(this::timer);
        say("ready");
        String line;
        while ((line = in.readLine()) != null) {
            handle(line);
        }
        timer.interrupt();
        // The executor is gone (any signal, SIGKILL included): no run it held may go on without it.
        for (Map.Entry<String, Tracked> run : runs.entrySet()) {
            killGroup(run.getKey(), run.getValue().pgid());
        }
        killMarked(m -> m.session().equals(session) && runs.containsKey(m.run()));
    }

    void handle(String line) {
        String[] f = line.split(" ");
        try {
            switch (f[0]) {
                case "T" -> runs.put(f[1], new Tracked(Long.parseLong(f[2]), deadline(Long.parseLong(f[3]))));
                case "R" -> {
                    long deadline = deadline(Long.parseLong(f[1]));
                    for (int i = 2; i < f.length; i++) {
                        runs.computeIfPresent(f[i], (k, t) -> new Tracked(t.pgid(), deadline));
                    }
                }
                case "E" -> {
                    boolean wasKilled;
                    synchronized (killed) {
                        wasKilled = runs.remove(f[1]) == null && killed.contains(f[1]);
                    }
                    say("E " + f[1] + (wasKilled ? " killed" : " ok"));
                }
                case "L" -> {
                    Set<String> lost = Set.of(Arrays.copyOfRange(f, 1, f.length));
                    int killed = killMarked(m -> m.executorId().equals(executorId)
                            && !m.session().equals(session)
                            && lost.contains(m.run()));
                    if (killed > 0) {
                        System.err.println(
                                "ax reaper: killed " + killed + " processes of runs an earlier life of executor "
                                        + executorId + " held: " + String.join(" ", lost));
                    }
                }
                default -> System.err.println("ax reaper: unknown line ignored: " + line);
            }
        } catch (RuntimeException e) {
            System.err.println("ax reaper: bad line ignored: " + line + " (" + e + ")");
        }
    }

    private long deadline(long millisLeft) {
        return nanos.getAsLong() + TimeUnit.MILLISECONDS.toNanos(millisLeft);
    }

    private void timer() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            expire();
        }
    }

    /**
     * Kills every run whose lease was not renewed in time, and tells the executor, should it wake up. A run whose
     * shell had already ended by itself (only what it left behind is killed) counts as ended, not killed: the
     * executor reports its outcome as usual.
     */
    void expire() {
        long now = nanos.getAsLong();
        for (Map.Entry<String, Tracked> run : List.copyOf(runs.entrySet())) {
            if (now - run.getValue().deadlineNanos() < 0) {
                continue;
            }
            // Under the lock the executor's "E" for this run waits for, so its answer tells the truth.
            synchronized (killed) {
                if (!runs.remove(run.getKey(), run.getValue())) {
                    continue; // renewed or ended meanwhile
                }
                long pgid = run.getValue().pgid();
                boolean shellRan = Procs.stat(pgid).filter(Procs.Stat::running).isPresent();
                killGroup(run.getKey(), pgid);
                killMarked(m -> m.session().equals(session) && m.run().equals(run.getKey()));
                if (shellRan) {
                    killed.add(run.getKey());
                    say("K " + run.getKey() + " its lease was not renewed in time");
                }
            }
        }
    }

    private void killGroup(String run, long pgid) {
        try {
            boolean ours = false;
            for (long pid : Procs.pids()) {
                ours |= Procs.stat(pid)
                                .filter(s -> s.pgid() == pgid && s.running())
                                .isPresent()
                        && Marker.of(pid)
                                .filter(m ->
                                        m.session().equals(session) && m.run().equals(run))
                                .isPresent();
            }
            if (ours) {
                Procs.signalGroup(pgid, "KILL");
            }
        } catch (IOException e) {
            System.err.println("ax reaper: cannot kill group " + pgid + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills every process whose marker {@code which} takes; returns how many. */
    private int killMarked(Predicate<Marker> which) {
        List<ProcessHandle> doomed = new ArrayList<>();
        try {
            for (long pid : Procs.pids()) {
                if (pid != ProcessHandle.current().pid()
                        && Marker.of(pid).filter(which).isPresent()) {
                    ProcessHandle.of(pid).ifPresent(doomed::add);
                }
            }
        } catch (IOException e) {
            System.err.println("ax reaper: cannot list processes: " + e);
        }
        doomed.forEach(ProcessHandle::destroyForcibly);
        return doomed.size();
    }

    private synchronized void say(String line) {
        out.println(line);
        out.flush();
    }

    /** A job's marker: which executor's life and which run started it. */
    record Marker(String session, String run, String executorId) {
        static Optional<Marker> of(long pid) {
            return Procs.environ(pid, Reaper.MARKER_ENV)
                    .map(v -> v.split(" ", 3))
                    .filter(f -> f.length == 3)
                    .map(f -> new Marker(f[0], f[1], f[2]));
        }
    }
}
