package dev.ax.executor.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Linux process-group helpers: read {@code /proc}, signal a group with {@code kill}. */
final class ProcessTree {

  private static final Logger log = LoggerFactory.getLogger(ProcessTree.class);
  private static final Path PROC = Path.of("/proc");
  private static final String KILL = firstExecutable("/usr/bin/kill", "/bin/kill");

  private ProcessTree() {
  }

  /** What {@code /proc/<pid>/stat} says about a process. */
  record Stat(long pid, char state, long ppid, long pgid, long sid) {
    /** A zombie has exited and only waits to be reaped; it is not running any more. */
    boolean running() {
      return state != 'Z' && state != 'X' && state != 'x';
    }
  }

  static Optional<Stat> stat(long pid) {
    try {
      return Optional.ofNullable(parse(pid, Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"),
          StandardCharsets.ISO_8859_1)));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // gone (or never existed)
    }
  }

  static Stat parse(long pid, String stat) {
    // "pid (comm) S ppid pgrp session ..." -- comm may contain spaces and parentheses: split after the LAST ')'.
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      return null;
    }
    String[] f = stat.substring(close + 2).trim().split(" ");
    return new Stat(pid, f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]));
  }

  /** Pids of running (non-zombie) processes whose process group is {@code pgid}. */
  static List<Long> groupMembers(long pgid) {
    List<Long> members = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
      for (Path p : dir) {
        String name = p.getFileName().toString();
        if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
          continue;
        }
        long pid;
        try {
          pid = Long.parseLong(name);
        } catch (NumberFormatException e) {
          continue;
        }
        stat(pid).filter(s -> s.pgid() == pgid && s.running()).ifPresent(s -> members.add(s.pid()));
      }
    } catch (IOException e) {
      log.warn("cannot list /proc: {}", e.toString());
    }
    return members;
  }

  /** True if the handle's process exists and is not a zombie. */
  static boolean running(ProcessHandle h) {
    return h.isAlive() && stat(h.pid()).map(Stat::running).orElse(false);
  }

  /**
   * Sends {@code signal} ("TERM", "KILL") to every process of group {@code pgid} with one kill(2) call, which
   * cannot miss a process forked meanwhile. Returns false if no process was signalled (empty group) or kill failed.
   */
  static boolean signalGroup(long pgid, String signal) {
    if (pgid <= 1) {
      throw new IllegalArgumentException("refusing to signal process group " + pgid);
    }
    if (KILL != null) {
      try {
        Process kill = new ProcessBuilder(KILL, "-s", signal, "--", "-" + pgid)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        if (kill.waitFor(10, TimeUnit.SECONDS)) {
          return kill.exitValue() == 0;
        }
        kill.destroyForcibly();
        log.warn("kill -s {} -{} did not finish in 10s", signal, pgid);
      } catch (IOException e) {
        log.warn("cannot run {}: {}; signalling group {} member by member", KILL, e.toString(), pgid);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
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

  static String firstExecutable(String... candidates) {
    for (String c : candidates) {
      if (Files.isExecutable(Path.of(c))) {
        return c;
      }
    }
    return null;
  }
}
