package dev.ax.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** CPU and memory of this JVM and of the PostgreSQL processes on this machine, read from /proc. */
final class Proc {
    private Proc() {}

    /** CPU time of this JVM so far, nanoseconds (all threads, user + system). */
    static long jvmCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Resident set size of this process in bytes (VmRSS), or -1 off Linux. */
    static long rssBytes() {
        return rssBytes(Path.of("/proc/self/status"));
    }

    static long rssBytes(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the process is gone
        }
        return -1;
    }

    /**
     * CPU time of every process named {@code process} ({@code postgres}: the postmaster, its backends and helpers;
     * {@code mariadbd}), nanoseconds: utime + stime + cutime + cstime, so backends that exit between two readings
     * are still counted (their time moves into the postmaster's cutime/cstime when it reaps them). Only meaningful
     * on a machine where the database server runs locally; -1 when /proc is absent.
     */
    static long serverCpuNanos(String process) {
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return -1;
        }
        long ticks = 0;
        try (Stream<Path> dirs = Files.list(proc)) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                String name = dir.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                try {
                    String stat = Files.readString(dir.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    if (open < 0
                            || close < 0
                            || !stat.substring(open + 1, close).equals(process)) {
                        continue;
                    }
                    // Fields after the comm: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
                    String[] f = stat.substring(close + 2).split(" ");
                    ticks += Long.parseLong(f[11])
                            + Long.parseLong(f[12])
                            + Long.parseLong(f[13])
                            + Long.parseLong(f[14]);
                } catch (IOException | RuntimeException e) {
                    // the process ended while we looked
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * (1_000_000_000L / CLK_TCK);
    }

    /**
     * CPU time the whole machine has been busy so far, nanoseconds, all cores together: the user,
     * nice, system, irq and softirq columns of /proc/stat (every process and the kernel, child
     * processes such as spawned shells included; not idle, iowait or time stolen by the
     * hypervisor). -1 off Linux.
     */
    static long boxBusyNanos() {
        try {
            String[] f =
                    Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long ticks = Long.parseLong(f[1])
                    + Long.parseLong(f[2])
                    + Long.parseLong(f[3])
                    + Long.parseLong(f[6])
                    + Long.parseLong(f[7]);
            return ticks * (1_000_000_000L / CLK_TCK);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Kernel clock ticks per second (USER_HZ); 100 on every mainstream Linux build. */
    static final long CLK_TCK = 100;

    /** A CPU reading of this JVM, of PostgreSQL and of the whole machine at one moment. */
    record Cpu(long wallNanos, long jvmNanos, long pgNanos, long boxNanos) {
        static Cpu now() {
            return now("postgres");
        }

        /** As {@link #now()}, the database server's processes named {@code server}. */
        static Cpu now(String server) {
            return new Cpu(System.nanoTime(), jvmCpuNanos(), serverCpuNanos(server), boxBusyNanos());
        }

        /** Cores busy on average between {@code this} and {@code later}: 1.0 = one core fully used. */
        double jvmCoresUntil(Cpu later) {
            return jvmNanos < 0 ? Double.NaN : (double) (later.jvmNanos - jvmNanos) / (later.wallNanos - wallNanos);
        }

        double pgCoresUntil(Cpu later) {
            return pgNanos < 0 ? Double.NaN : (double) (later.pgNanos - pgNanos) / (later.wallNanos - wallNanos);
        }

        double boxCoresUntil(Cpu later) {
            return boxNanos < 0 ? Double.NaN : (double) (later.boxNanos - boxNanos) / (later.wallNanos - wallNanos);
        }
    }
}
