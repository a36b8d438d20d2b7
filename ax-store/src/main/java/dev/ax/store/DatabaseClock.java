package dev.ax.store;

import dev.ax.domain.time.AxClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The production clock: the node's own clock corrected by its measured offset to the database
 * clock (invariant 2). A node whose clock is 15 s off therefore still wakes up on time; and the
 * decision "is this slot due?" is taken inside SQL with the database's own time anyway, so a
 * wrong offset could only make a node wake too early or too late, never fire early or twice.
 */
public final class DatabaseClock implements AxClock {
    public static final Duration DEFAULT_RESYNC = Duration.ofSeconds(30);

    private final Database db;
    private final AxClock local;
    private final Duration resync;
    private final AtomicReference<Sample> sample = new AtomicReference<>();

    private record Sample(Duration offset, Instant takenAtLocal) {}

    public DatabaseClock(Database db, AxClock local, Duration resync) {
        this.db = db;
        this.local = local;
        this.resync = resync;
        sync();
    }

    /** Measures the offset again: half a round trip is the best estimate of when the database read its clock. */
    public Duration sync() {
        Instant before = local.now();
        Instant dbNow = db.tx(Tx::now);
        Instant after = local.now();
        Instant midpoint = before.plus(Duration.between(before, after).dividedBy(2));
        Duration offset = Duration.between(midpoint, dbNow);
        sample.set(new Sample(offset, after));
        return offset;
    }

    public Duration offset() {
        return sample.get().offset();
    }

    @Override
    public Instant now() {
        Sample s = sample.get();
        Instant localNow = local.now();
        if (Duration.between(s.takenAtLocal(), localNow).compareTo(resync) > 0) {
            try {
                sync();
                s = sample.get();
            } catch (StoreException e) {
                // Keep the last offset; the database being down is reported by the loops that need it.
            }
        }
        return localNow.plus(s.offset());
    }
}
