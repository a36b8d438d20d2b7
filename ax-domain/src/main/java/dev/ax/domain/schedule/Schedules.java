package dev.ax.domain.schedule;

import dev.ax.domain.task.Trigger;

/** The schedule of a trigger. Event triggers have no slots. */
public final class Schedules {
    private Schedules() {}

    public static Schedule of(Trigger trigger) {
        return switch (trigger) {
            case Trigger.Cron c -> CronSchedule.parse(c.expression(), c.timezone());
            case Trigger.Interval i -> new IntervalSchedule(i.intervalSeconds(), i.startAt());
            case Trigger.Event e -> Schedule.NEVER;
        };
    }
}
