package dev.ax.console;

import dev.ax.console.Session.Who;
import dev.ax.console.Views.Bar;
import dev.ax.console.Views.Chart;
import dev.ax.console.Views.Count;
import dev.ax.console.Views.Dashboard;
import dev.ax.domain.run.RunState;
import dev.ax.store.ExecutorRow;
import dev.ax.store.Store;
import dev.ax.store.read.ConsoleReads;
import dev.ax.store.read.ConsoleReads.HourRow;
import dev.ax.store.read.RecentHours;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/** The first page: what ran in the last day, what runs and waits now, what needs a person, and whether the node is well. */
final class DashboardPage {
    static final int WINDOW_HOURS = 24;
    static final int LIST_LIMIT = 10;
    private static final List<RunState> OUTCOME_ORDER = List.of(
            RunState.SUCCESS,
            RunState.FAILED,
            RunState.TERMINATED,
            RunState.CANCELED,
            RunState.SKIPPED,
            RunState.RUNNING,
            RunState.RETRYING,
            RunState.READY,
            RunState.BLOCKED,
            RunState.WAITING_APPROVAL,
            RunState.WAITING_DEPENDENCY);
    /** An hour's bar is labelled by when it starts in the person's zone ("02:00"; "05:30" in India). */
    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("HH:mm");

    private final ConsoleContext c;
    /** The chart's counts, kept up to date rather than counted again on each request. */
    private final RecentHours recent = new RecentHours();

    DashboardPage(ConsoleContext c) {
        this.c = c;
    }

    void show(Context ctx, Who who) {
        Store store = c.store();
        long alive = c.executorAliveMillis();
        I18n t = I18n.of(ctx);
        Views.Health health = SystemPages.health(c, t);
        Dashboard d = store.tx(tx -> {
            Instant now = tx.now();
            Instant since = now.minus(Duration.ofHours(WINDOW_HOURS));
            long fromId = ConsoleReads.firstIdSince(tx, since);
            List<HourRow> hours = recent.read(tx, since, fromId);
            Map<RunState, Long> outcomes = new EnumMap<>(RunState.class);
            hours.forEach(h -> outcomes.merge(h.state(), h.runs(), Long::sum));
            Map<RunState, Long> live = store.runs()
                    .countInStates(
                            tx,
                            List.of(
                                    RunState.RUNNING,
                                    RunState.WAITING_APPROVAL,
                                    RunState.READY,
                                    RunState.BLOCKED,
                                    RunState.RETRYING));
            List<ExecutorRow> executors = store.executors().all(tx);
            Instant cutoff = now.minusMillis(alive);
            int online = (int) executors.stream()
                    .filter(e -> e.lastSeenAt() != null && !e.lastSeenAt().isBefore(cutoff))
                    .count();
            return new Dashboard(
                    WINDOW_HOURS,
                    outcomes.values().stream().mapToLong(Long::longValue).sum(),
                    counts(outcomes),
                    live.get(RunState.RUNNING),
                    Items.runs(ConsoleReads.inState(tx, RunState.RUNNING, LIST_LIMIT), t),
                    live.get(RunState.WAITING_APPROVAL),
                    Items.runs(ConsoleReads.inState(tx, RunState.WAITING_APPROVAL, LIST_LIMIT), t),
                    Items.runs(ConsoleReads.failedUnhandled(tx, fromId, LIST_LIMIT), t),
                    live.get(RunState.READY),
                    live.get(RunState.BLOCKED),
                    live.get(RunState.RETRYING),
                    online,
                    executors.size(),
                    health,
                    chart(hours, now, t));
        });
        c.templates()
                .page(
                        ctx,
                        "dashboard.jte",
                        new Page(t.text("page.dashboard"), "dashboard", who, Session.takeFlash(ctx)),
                        d);
    }

    private static List<Count> counts(Map<RunState, Long> byState) {
        List<Count> out = new ArrayList<>();
        for (RunState s : OUTCOME_ORDER) {
            long n = byState.getOrDefault(s, 0L);
            if (n > 0 || s == RunState.SUCCESS || s == RunState.FAILED) {
                out.add(new Count(s.name(), n, "state-" + s.name().toLowerCase(Locale.ROOT)));
            }
        }
        return out;
    }

    /**
     * 24 hourly bars (failures stacked in red) and the worst fire lag per hour as a line, in SVG units; the hours are
     * the database's (UTC) hours, labelled by when they start in the person's zone.
     */
    static Chart chart(List<HourRow> rows, Instant now, I18n t) {
        int width = 720;
        int height = 160;
        int top = 8; // headroom, so the tallest bar does not touch the frame
        int plot = height - 20 - top;
        int barWidth = width / WINDOW_HOURS;
        long currentHour = Math.floorDiv(now.getEpochSecond(), 3600);
        long firstHour = currentHour - (WINDOW_HOURS - 1);
        long[] runs = new long[WINDOW_HOURS];
        long[] failed = new long[WINDOW_HOURS];
        Double[] lags = new Double[WINDOW_HOURS];
        for (HourRow r : rows) {
            int i = (int) (r.hour() - firstHour);
            if (i < 0 || i >= WINDOW_HOURS) {
                continue; // a run created at the window's edge, in the hour before the first bar
            }
            runs[i] += r.runs();
            if (r.state() == RunState.FAILED || r.state() == RunState.TERMINATED) {
                failed[i] += r.runs();
            }
            if (r.maxLagSeconds() != null && (lags[i] == null || r.maxLagSeconds() > lags[i])) {
                lags[i] = r.maxLagSeconds();
            }
        }
        long max = Math.max(1, Arrays.stream(runs).max().orElse(0));
        double maxLag = Arrays.stream(lags)
                .filter(Objects::nonNull)
                .mapToDouble(Double::doubleValue)
                .max()
                .orElse(0);
        List<Bar> bars = new ArrayList<>();
        StringBuilder lag = new StringBuilder();
        for (int i = 0; i < WINDOW_HOURS; i++) {
            int h = (int) Math.round((double) runs[i] / max * plot);
            int fh = (int) Math.round((double) failed[i] / max * plot);
            int x = i * barWidth;
            Instant start = Instant.ofEpochSecond((firstHour + i) * 3600);
            String when = t.minute(start);
            String title = (runs[i] == 1 ? t.text("chart.bar_one", when) : t.text("chart.bar", when, runs[i]))
                    + (failed[i] > 0 ? t.text("chart.bar_failed", failed[i]) : "")
                    + (lags[i] != null ? t.text("chart.bar_lag", seconds(lags[i], t)) : "");
            bars.add(new Bar(
                    x,
                    top + plot - h,
                    h,
                    top + plot - fh,
                    fh,
                    title,
                    i % 6 == 0 ? HOUR.format(start.atZone(t.zone())) : null));
            if (lags[i] != null && maxLag > 0) {
                int y = (int) Math.round(top + plot - lags[i] / maxLag * plot);
                lag.append(x + barWidth / 2).append(',').append(y).append(' ');
            }
        }
        return new Chart(
                width,
                height,
                barWidth,
                max,
                bars,
                lag.toString().strip(),
                maxLag > 0 ? seconds(maxLag, t) : null,
                t.zone().getId());
    }

    private static String seconds(double s, I18n t) {
        return t.duration(Duration.ofMillis(Math.round(s * 1000)));
    }
}
