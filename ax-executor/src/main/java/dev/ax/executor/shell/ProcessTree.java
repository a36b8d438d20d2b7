package dev.ax.executor.shell;

import dev.ax.executor.os.Procs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Linux process-group helpers: read {@code /proc}, signal a group with {@code kill}. */
final class ProcessTree {

    private static final Logger log = LoggerFactory.getLogger(ProcessTree.class);

    private ProcessTree() {}

    /** Pids of running (non-zombie) processes whose process group is {@code pgid}. */
    static List<Long> groupMembers(long pgid) {
        List<Long> members = new ArrayList<>();
        try {
            for (long pid : Procs.pids()) {
                Procs.stat(pid).filter(s -> s.pgid() == pgid && s.running()).ifPresent(s -> members.add(s.pid()));
            }
        } catch (IOException e) {
            log.warn("cannot list /proc: {}", e.toString());
        }
        return members;
    }

    /** True if the handle's process exists and is not a zombie. */
    static boolean running(ProcessHandle h) {
        return h.isAlive() && Procs.stat(h.pid()).map(Procs.Stat::running).orElse(false);
    }

    /**
     * Sends {@code signal} ("TERM", "KILL") to every process of group {@code pgid} with one kill(2) call, which
     * cannot miss a process forked meanwhile. Returns false if no process was signalled (empty group) or kill failed.
     */
    static boolean signalGroup(long pgid, String signal) {
        try {
            if (Procs.signalGroup(pgid, signal)) {
                return true;
            }
        } catch (IOException e) {
            log.warn("cannot run kill: {}; signalling group {} member by member", e.toString(), pgid);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        // Fallback: signal each member we can see (racy against concurrent forks; the caller repeats after the grace).
        boolean any = false;
        for (long pid : groupMembers(pgid)) {
            any |= signal(ProcessHandle.of(pid).orElse(null), signal);
        }
        return any;
    }

    /** Sends TERM or KILL to one process. */
    static boolean signal(ProcessHandle h, String signal) {
        if (h == null || h.pid() == ProcessHandle.current().pid()) {
            return false;
        }
        try {
            return "KILL".equals(signal) ? h.destroyForcibly() : h.destroy();
        } catch (RuntimeException e) {
            return false;
        }
    }
}
