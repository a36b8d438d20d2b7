package dev.ax.alerts;

import java.time.Duration;
import java.util.Objects;

/**
 * Field checks of the config records. Apart from {@link AlertsConfig} on purpose: a nested record
 * calling a static method of its outer class would start the outer class's initialisation while
 * its own DEFAULT is still null, and {@link AlertsConfig#NONE} would be built with nulls.
 */
final class ConfigChecks {
    private ConfigChecks() {}

    static void positive(String field, Duration d) {
        Objects.requireNonNull(d, field);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(field + " must be positive, was " + d);
        }
    }

    static void atLeast(String field, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be at least " + min + ", was " + value);
        }
    }
}
