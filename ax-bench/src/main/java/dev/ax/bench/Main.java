package dev.ax.bench;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code java -jar ax-bench.jar <workload>}: the benchmarks of BENCHMARKS.md, AX side by side with Quartz and db-scheduler. */
@Command(
        name = "ax-bench",
        mixinStandardHelpOptions = true,
        description =
                "AX benchmarks (BENCHMARKS.md): AX, Quartz and db-scheduler on the same PostgreSQL, in one invocation.",
        subcommands = {
            W1Command.class,
            W2Command.class,
            ShellCommand.class,
            HttpCommand.class,
            ApiCommand.class,
            StartupCommand.class,
            MemoryCommand.class,
            ConsoleCommand.class,
            HistoryCommand.class,
            BoxCommand.class,
            AllCommand.class,
            StartupCommand.Child.class,
            MemoryCommand.Child.class
        })
public final class Main implements Runnable {
    public static void main(String[] args) {
        quietLogs();
        int code = new CommandLine(new Main()).execute(args);
        System.exit(code);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** Libraries speak only when something is wrong: the tables are the output. */
    static void quietLogs() {
        String level = System.getenv().getOrDefault("AX_BENCH_LOG_LEVEL", "WARN");
        if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
            root.setLevel(Level.toLevel(level, Level.WARN));
        }
        for (String name : QUIETED) {
            if (LoggerFactory.getLogger(name) instanceof Logger l) {
                l.setLevel(null);
            }
        }
    }

    private static final String[] QUIETED = {
        "dev.ax.scheduler.LoopRunner", "com.zaxxer.hikari", "dev.ax.scheduler", "org.quartz"
    };

    /** Silences the named loggers until the next {@link #quietLogs()} (for shutdown noise). */
    static void quiet(String... names) {
        for (String name : names) {
            if (LoggerFactory.getLogger(name) instanceof Logger l) {
                l.setLevel(Level.OFF);
            }
        }
    }
}
