package dev.ax.bench;

import dev.ax.scheduler.Retention;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How much expired history the node's retention deleted around a measured window, and whether the expired history ran
 * out before the window ended (then the window measured retention idling for part of its time, and the rate is a
 * lower bound of what it can do).
 *
 * <p>{@link Retention#totals()} moves once per round, so the window's figure from it is as coarse as a round; the
 * exact count of runs deleted in the window comes from the table's counters ({@link WriteCosts}). A thread samples the
 * totals to find when the runs expired at the start were all gone.
 */
final class RetentionProbe implements Window.Probe {
    private static final long SAMPLE_MILLIS = 100;

    private final Retention retention;
    /** Runs that had expired when the node started: what retention has to work through. */
    private final long expiredAtStart;

    private final Thread sampler;
    private volatile boolean sampling = true;
    private volatile long ranOutAtMillis = -1;
    private long t0Millis;
    private long t1Millis;
    private long deletedAtStart;
    private long deletedAtEnd;

    RetentionProbe(Pg pg, String database, Retention retention, Duration period) {
        this.retention = retention;
        // A full count before the node starts: the only moment nothing else is reading the table.
        this.expiredAtStart = pg.scalar(
                database,
                "SELECT COUNT(*) FROM ax_instance WHERE finished_at < now() - interval '" + period.toSeconds()
                        + " seconds'");
        this.sampler = Thread.ofPlatform().daemon(true).name("retention-probe").start(this::sample);
    }

    private void sample() {
        while (sampling) {
            if (ranOutAtMillis < 0 && retention.totals().runs() >= expiredAtStart) {
                ranOutAtMillis = System.currentTimeMillis();
            }
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void atStart() {
        t0Millis = System.currentTimeMillis();
        deletedAtStart = retention.totals().runs();
    }

    @Override
    public void atEnd() {
        t1Millis = System.currentTimeMillis();
        deletedAtEnd = retention.totals().runs();
        sampling = false;
        sampler.interrupt();
    }

    @Override
    public Map<String, Object> result() {
        sampling = false;
        sampler.interrupt();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("expiredRunsAtStart", expiredAtStart);
        m.put("retentionDeletedBeforeWindow", deletedAtStart);
        m.put("retentionDeletedInWindowByTotals", deletedAtEnd - deletedAtStart);
        boolean ranOut = ranOutAtMillis >= 0 && ranOutAtMillis <= t1Millis;
        m.put("expiredHistoryRanOut", ranOut);
        if (ranOut) {
            // Negative: it ran out in the warm-up, and the window saw none of it.
            m.put("expiredHistoryRanOutSecondsIntoWindow", Math.round((ranOutAtMillis - t0Millis) / 100.0) / 10.0);
        }
        return m;
    }
}
