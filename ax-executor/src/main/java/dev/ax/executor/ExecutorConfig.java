package dev.ax.executor;

import dev.ax.executor.shell.ShellRunner;
import java.time.Duration;
import java.util.List;

/**
 * How one executor process behaves. Immutable; every value is checked when the record is built and a bad one fails
 * with a message that names the field (nothing is clamped silently).
 *
 * @param executorId     stable name of this executor, the same across restarts (e.g. the host name)
 * @param groups         the executor groups whose runs this executor takes; at least one
 * @param concurrency    how many runs may execute at the same time
 * @param pollWaitMillis how long one long-poll may wait on the server for work
 * @param killGrace      time between SIGTERM and SIGKILL when a run is cancelled or times out
 * @param version        the executor's version, shown by the server next to the executor
 * @param labels         environment labels (e.g. {@code prod}): a task naming {@code environment} labels runs only on
 *                       executors carrying all of them; an executor without labels runs only tasks that name none
 */
public record ExecutorConfig(
        String executorId,
        List<String> groups,
        int concurrency,
        long pollWaitMillis,
        Duration killGrace,
        String version,
        List<String> labels) {

    public static final int DEFAULT_CONCURRENCY = 8;
    public static final long DEFAULT_POLL_WAIT_MILLIS = 20_000;
    /** SIGTERM, then SIGKILL this long after: the shell runner's own default. */
    public static final Duration DEFAULT_KILL_GRACE = ShellRunner.DEFAULT_KILL_GRACE;

    public static final String DEFAULT_VERSION = defaultVersion();

    public ExecutorConfig {
        if (executorId == null || executorId.isBlank()) {
            throw new IllegalArgumentException("executorId is required");
        }
        if (groups == null || groups.isEmpty()) {
            throw new IllegalArgumentException("groups must name at least one executor group");
        }
        for (String group : groups) {
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("groups must not contain a blank group name: " + groups);
            }
        }
        groups = List.copyOf(groups);
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        if (pollWaitMillis < 0) {
            throw new IllegalArgumentException("pollWaitMillis must not be negative, was " + pollWaitMillis);
        }
        if (killGrace == null || killGrace.isNegative()) {
            throw new IllegalArgumentException("killGrace must be zero or positive, was " + killGrace);
        }
        if (version == null || version.isBlank()) {
            throw new IllegalArgumentException("version is required");
        }
        labels = labels == null ? List.of() : List.copyOf(labels);
        for (String label : labels) {
            if (label.isBlank() || !label.matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
                throw new IllegalArgumentException("labels: '" + label
                        + "' must be letters, digits, '_', '.' or '-', starting with a letter or digit");
            }
        }
    }

    /** A config without environment labels. */
    public ExecutorConfig(
            String executorId,
            List<String> groups,
            int concurrency,
            long pollWaitMillis,
            Duration killGrace,
            String version) {
        this(executorId, groups, concurrency, pollWaitMillis, killGrace, version, List.of());
    }

    public ExecutorConfig withLabels(List<String> labels) {
        return new ExecutorConfig(executorId, groups, concurrency, pollWaitMillis, killGrace, version, labels);
    }

    /** A config with every optional value at its default. */
    public static ExecutorConfig of(String executorId, List<String> groups) {
        return new ExecutorConfig(
                executorId, groups, DEFAULT_CONCURRENCY, DEFAULT_POLL_WAIT_MILLIS, DEFAULT_KILL_GRACE, DEFAULT_VERSION);
    }

    public ExecutorConfig withConcurrency(int concurrency) {
        return new ExecutorConfig(executorId, groups, concurrency, pollWaitMillis, killGrace, version, labels);
    }

    public ExecutorConfig withPollWaitMillis(long pollWaitMillis) {
        return new ExecutorConfig(executorId, groups, concurrency, pollWaitMillis, killGrace, version, labels);
    }

    public ExecutorConfig withKillGrace(Duration killGrace) {
        return new ExecutorConfig(executorId, groups, concurrency, pollWaitMillis, killGrace, version, labels);
    }

    public ExecutorConfig withVersion(String version) {
        return new ExecutorConfig(executorId, groups, concurrency, pollWaitMillis, killGrace, version, labels);
    }

    /** The jar's Implementation-Version when packaged with one, "dev" when run from classes. */
    private static String defaultVersion() {
        String v = ExecutorConfig.class.getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? "dev" : v;
    }
}
