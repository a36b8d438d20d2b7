package dev.ax.executor.reaper;

import dev.ax.domain.protocol.RunRef;
import dev.ax.executor.os.Procs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's side of its reaper ({@link ReaperMain}): starts it, tells it each run's process group and until
 * when the run's lease can be counted on, and hears which runs it killed. If the reaper dies, a new one is started
 * and told every run again.
 *
 * <p>Every process a run starts carries {@link #MARKER_ENV} in its environment, naming this executor's life and the
 * run: how the reaper finds the ones that left the run's process group, and how a later life of the same executor
 * finds what an earlier one left.
 */
public final class Reaper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Reaper.class);
    /** The environment variable that marks a run's processes: "{@code session run executorId}". */
    public static final String MARKER_ENV = "AX_EXECUTOR_RUN";
    /** The reaper's JVM: no JIT beyond C1, a tiny heap, one GC thread; it sleeps nearly all the time. */
    private static final List<String> JVM_OPTIONS = List.of(
            "-Xmx16m",
            "-Xss256k",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1",
            "-XX:-UsePerfData",
            "-Xshare:auto");

    private record Tracked(long pgid, long deadlineNanos) {}

    private final String executorId;
    private final String session;
    private final Consumer<RunRef> onKilled;
    private final Map<String, Tracked> tracked = new LinkedHashMap<>(); // guarded by this
    /** Runs the reaper said it killed, until their shells' end is seen here. */
    private final Set<String> killedHere = ConcurrentHashMap.newKeySet();

    private final Map<String, CompletableFuture<Boolean>> releases = new ConcurrentHashMap<>();
    /** How long a run's end waits for the reaper's word on it: a local pipe, normally well under a millisecond. */
    private static final Duration RELEASE_WAIT = Duration.ofSeconds(2);

    private Process process; // guarded by this
    private Writer to; // guarded by this
    private boolean closed; // guarded by this

    private Reaper(String executorId, String session, Consumer<RunRef> onKilled) {
        this.executorId = executorId;
        this.session = session;
        this.onKilled = onKilled;
    }

    /**
     * Starts the reaper of one executor life and waits until it watches.
     *
     * @param onKilled told (on a thread of the reaper's) about each run whose lease ran out and which it killed
     * @throws IOException when no reaper can be started: the executor must not run processes it cannot guard
     */
    public static Reaper start(String executorId, String session, Consumer<RunRef> onKilled) throws IOException {
        Reaper reaper = new Reaper(executorId, session, onKilled);
        synchronized (reaper) {
            reaper.launch();
        }
        return reaper;
    }

    /** The value of {@link #MARKER_ENV} for the processes of {@code run}. */
    public String marker(RunRef run) {
        return session + " " + key(run) + " " + executorId;
    }

    /** A run's process group started; it holds its lease until {@code deadlineNanos} (this JVM's nanoTime). */
    public synchronized void track(RunRef run, long pgid, long deadlineNanos) {
        tracked.put(key(run), new Tracked(pgid, deadlineNanos));
        send("T " + key(run) + " " + pgid + " " + millisLeft(deadlineNanos));
    }

    /** These runs' leases were renewed: they hold until {@code deadlineNanos}. */
    public synchronized void renew(Collection<RunRef> runs, long deadlineNanos) {
        StringBuilder line = new StringBuilder("R ").append(millisLeft(deadlineNanos));
        for (RunRef run : runs) {
            Tracked t = tracked.get(key(run));
            if (t != null) {
                tracked.put(key(run), new Tracked(t.pgid(), deadlineNanos));
                line.append(' ').append(key(run));
            }
        }
        send(line.toString());
    }

    /**
     * Runs an earlier life of this executor held, which the server has now declared lost: whatever of them still
     * runs (its reaper died with it) is killed.
     */
    public synchronized void killEarlierLives(Collection<RunRef> runs) {
        if (!runs.isEmpty()) {
            send("L " + String.join(" ", runs.stream().map(Reaper::key).toList()));
        }
    }

    /**
     * The run's shell ended. True if the reaper had killed it (its lease ran out, see {@link #track}): then its
     * outcome says nothing about the job and must not be reported.
     */
    public boolean release(RunRef run) throws InterruptedException {
        String key = key(run);
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        synchronized (this) {
            if (tracked.remove(key) == null && !killedHere.contains(key)) {
                return false; // never tracked
            }
            releases.put(key, answer);
            send("E " + key);
        }
        boolean killed = false;
        try {
            killed = answer.get(RELEASE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.warn("the reaper did not answer for run {} in {}; going by what it said before", run, RELEASE_WAIT);
        } finally {
            releases.remove(key);
        }
        return killedHere.remove(key) | killed;
    }

    /** Ends the reaper: it kills whatever of this life still runs, then exits. */
    @Override
    public void close() {
        Process p;
        synchronized (this) {
            closed = true;
            p = process;
            try {
                to.close();
            } catch (IOException e) {
                // it is gone already
            }
        }
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void launch() throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> argv = new ArrayList<>();
        // Its own session: a Ctrl-C or a signal to the executor's process group must not take the reaper with it.
        String setsid = Procs.firstExecutable("/usr/bin/setsid", "/bin/setsid");
        if (setsid != null) {
            argv.add(setsid);
        }
        argv.add(java);
        argv.addAll(JVM_OPTIONS);
        argv.addAll(
                List.of("-cp", System.getProperty("java.class.path"), ReaperMain.class.getName(), executorId, session));
        Process p = new ProcessBuilder(argv)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader from = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String first = from.readLine();
        if (!"ready".equals(first)) {
            p.destroyForcibly();
            throw new IOException("the reaper process did not start (it said " + first + ", exit "
                    + (p.isAlive() ? "-" : p.exitValue()) + "): " + String.join(" ", argv));
        }
        process = p;
        to = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("ax-reaper-" + p.pid()).start(() -> listen(p, from));
        tracked.forEach((run, t) -> send("T " + run + " " + t.pgid() + " " + millisLeft(t.deadlineNanos())));
        log.debug("reaper {} watches executor {} (session {})", p.pid(), executorId, session);
    }

    private void listen(Process p, BufferedReader from) {
        try {
            String line;
            while ((line = from.readLine()) != null) {
                String[] f = line.split(" ", 3);
                if (f[0].equals("K")) {
                    RunRef run = run(f[1]);
                    killedHere.add(f[1]);
                    synchronized (this) {
                        tracked.remove(f[1]);
                    }
                    log.warn("the reaper killed run {}: {}", run, f.length > 2 ? f[2] : "");
                    onKilled.accept(run);
                } else if (f[0].equals("E")) {
                    CompletableFuture<Boolean> answer = releases.get(f[1]);
                    if (answer != null) {
                        answer.complete(f.length > 2 && f[2].equals("killed"));
                    }
                }
            }
        } catch (IOException e) {
            // the reaper is gone; below
        }
        synchronized (this) {
            if (closed || process != p) {
                return;
            }
            log.error(
                    "the reaper process {} died (exit {}); starting another",
                    p.pid(),
                    p.isAlive() ? "-" : p.exitValue());
            try {
                launch();
            } catch (IOException e) {
                log.error(
                        "cannot restart the reaper: {}; runs are not guarded against this executor's death",
                        e.getMessage());
            }
        }
    }

    private void send(String line) {
        if (closed) {
            return;
        }
        try {
            to.write(line);
            to.write('\n');
            to.flush();
        } catch (IOException e) {
            log.warn("cannot reach the reaper ({}); its listener restarts it", e.getMessage());
        }
    }

    private static long millisLeft(long deadlineNanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    static String key(RunRef run) {
        return run.instanceId() + ":" + run.attempt() + (run.shard() == null ? "" : ":" + run.shard());
    }

    static RunRef run(String key) {
        String[] f = key.split(":");
        return new RunRef(Long.parseLong(f[0]), Integer.parseInt(f[1]), f.length > 2 ? Integer.valueOf(f[2]) : null);
    }
}
