package dev.ax.domain.task;

import java.time.Instant;
import java.time.ZoneId;

/** When a task fires. Every trigger has a time zone: it renders {@code {{date}}} and friends. */
public sealed interface Trigger {
    ZoneId timezone();

    /** The JSON {@code trigger.type}. */
    String type();

    /** Time-triggered tasks have slots; event tasks fire only through the API. */
    default boolean isScheduled() {
        return !(this instanceof Event);
    }

    /** A cron expression: 5 fields (Unix), 6 with leading seconds, or a macro like {@code @daily}. */
    record Cron(String expression, ZoneId timezone) implements Trigger {
        @Override
        public String type() {
            return "cron";
        }
    }

    /**
     * Every {@code intervalSeconds}; slots are {@code startAt + k * interval} (the Unix epoch when
     * {@code startAt} is absent), so every node computes the same slots.
     */
    record Interval(long intervalSeconds, Instant startAt, ZoneId timezone) implements Trigger {
        @Override
        public String type() {
            return "interval";
        }
    }

    /** Fires only through {@code POST /api/trigger} (or by hand). */
    record Event(ZoneId timezone) implements Trigger {
        @Override
        public String type() {
            return "event";
        }
    }
}
