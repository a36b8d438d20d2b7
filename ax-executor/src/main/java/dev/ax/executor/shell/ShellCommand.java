package dev.ax.executor.shell;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * One shell command to run: {@code sh -c command}.
 *
 * @param command    the shell command line, passed verbatim to {@code sh -c}
 * @param env        variables added to (or overriding) the executor's own environment; never null (null becomes empty)
 * @param workingDir working directory, or null to inherit the executor's
 * @param timeout    maximum run time measured from start, or null for none; must be positive when given
 */
public record ShellCommand(String command, Map<String, String> env, Path workingDir, Duration timeout) {

    public ShellCommand {
        Objects.requireNonNull(command, "command");
        env = env == null ? Map.of() : Map.copyOf(env);
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
    }

    /** A command with no extra environment, inherited working directory and no timeout. */
    public static ShellCommand of(String command) {
        return new ShellCommand(command, Map.of(), null, null);
    }
}
