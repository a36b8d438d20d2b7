package dev.ax.alerts;

/** What an alert is about. The severity decides the wording and the icon, nothing else. */
public enum AlertKind {
    RUN_FAILED(Severity.CRITICAL),
    RUN_TIMED_OUT(Severity.CRITICAL),
    RUN_EXECUTOR_LOST(Severity.CRITICAL),
    APPROVAL_WAITING(Severity.INFO),
    APPROVAL_EXPIRED(Severity.WARNING),
    /** A run waited for its dependsOn past its deadline and gave up. */
    DEPENDENCY_DEADLINE(Severity.CRITICAL),
    RUN_RECOVERED(Severity.RESOLVED),
    RUN_SUCCEEDED(Severity.INFO),
    DUPLICATE_EXECUTION(Severity.CRITICAL),
    MISSED_EXECUTION(Severity.CRITICAL),
    LONG_RUN(Severity.WARNING),
    WATCHDOG(Severity.CRITICAL),
    WATCHDOG_RECOVERED(Severity.RESOLVED),
    /** Many alerts of one channel within a minute, collapsed into this one. */
    STORM_SUMMARY(Severity.WARNING),
    /** A canary rollout of a task change failed worse than the stable version and was rolled back automatically. */
    CANARY_ROLLED_BACK(Severity.CRITICAL),
    /** Sent by hand to try a channel's configuration. */
    TEST(Severity.INFO);

    public enum Severity {
        CRITICAL,
        WARNING,
        INFO,
        RESOLVED
    }

    private final Severity severity;

    AlertKind(Severity severity) {
        this.severity = severity;
    }

    public Severity severity() {
        return severity;
    }
}
