package dev.ax.domain.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/** A clock that tests move by hand, so a policy or a tick runs with no sleeps. */
public final class SettableClock implements AxClock {
    private final AtomicReference<Instant> now;

    public SettableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    @Override
    public Instant now() {
        return now.get();
    }

    public void set(Instant instant) {
        now.set(instant);
    }

    public void advance(Duration by) {
        now.updateAndGet(t -> t.plus(by));
    }
}
