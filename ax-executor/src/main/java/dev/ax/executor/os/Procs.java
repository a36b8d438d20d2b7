package dev.ax.executor.os;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Linux processes as {@code /proc} shows them, and signals to them. No logging on purpose: the reaper process uses
 * this and loads nothing it does not need.
 */
public final class Procs {
    private static final Path PROC = Path.of("/proc");
    private static final String KILL = firstExecutable("/usr/bin/kill", "/bin/kill");

    private Procs() {}

    /** What {@code /proc/<pid>/stat} says about a process. */
    public record Stat(long pid, char state, long ppid, long pgid, long sid) {
        /** A zombie has exited and only waits to be reaped; it is not running any more. */
        public boolean running() {
            return state != 'Z' && state != 'X' && state != 'x';
        }
    }

    public static Optional<Stat> stat(long pid) {
        try {
            return Optional.ofNullable(parse(
                    pid,
                    Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.ISO_8859_1)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // gone (or never existed)
        }
    }

    public static Stat parse(long pid, String stat) {
        // "pid (comm) S ppid pgrp session ..." -- comm may contain spaces and parentheses: split after the LAST ')'.
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return null;
        }
        String[] f = stat.substring(close + 2).trim().split(" ");
        return new Stat(pid, f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
    }

    /** Every process id {@code /proc} lists now. */
    public static List<Long> pids() throws IOException {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
            for (Path p : dir) {
                String name = p.getFileName().toString();
                if (!name.isEmpty() && Character.isDigit(name.charAt(0))) {
                    try {
                        pids.add(Long.parseLong(name));
                    } catch (NumberFormatException e) {
                        // not a process
                    }
                }
            }
        }
        return pids;
    }

    /**
     * The value of environment variable {@code name} in process {@code pid}'s environment as it was started; empty
     * when it has none, or the process is gone or not ours to read.
     */
    public static Optional<String> environ(long pid, String name) {
        byte[] env;
        try {
            env = Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        byte[] key = (name + "=").getBytes(StandardCharsets.UTF_8);
        int start = 0;
        for (int i = 0; i <= env.length; i++) {
            if (i == env.length || env[i] == 0) {
                if (i - start >= key.length && regionEquals(env, start, key)) {
                    return Optional.of(
                            new String(env, start + key.length, i - start - key.length, StandardCharsets.UTF_8));
                }
                start = i + 1;
            }
        }
        return Optional.empty();
    }

    private static boolean regionEquals(byte[] a, int from, byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (a[from + i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sends {@code signal} ("TERM", "KILL") to every process of group {@code pgid} with one kill(2) call, which
     * cannot miss a process forked meanwhile. False if no process was signalled or {@code kill} is missing.
     */
    public static boolean signalGroup(long pgid, String signal) throws IOException, InterruptedException {
        if (pgid <= 1) {
            throw new IllegalArgumentException("refusing to signal process group " + pgid);
        }
        if (KILL == null) {
            return false;
        }
        Process kill = new ProcessBuilder(KILL, "-s", signal, "--", "-" + pgid)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (kill.waitFor(10, TimeUnit.SECONDS)) {
            return kill.exitValue() == 0;
        }
        kill.destroyForcibly();
        return false;
    }

    public static String firstExecutable(String... candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }
}
