package dev.ax.domain.time;

import java.time.Duration;
import java.time.Instant;

/**
 * The machine's clock, optionally shifted by a fixed offset. Used only where no database is
 * at hand (the executor process, the CLI) and as the base that {@code DatabaseClock}
 * corrects. The offset exists so tests can run a node whose clock is wrong.
 */
public final class SystemClock implements AxClock {
    public static final SystemClock UTC = new SystemClock(Duration.ZERO);

    private final Duration skew;

    public SystemClock(Duration skew) {
        this.skew = skew;
    }

    @Override
    public Instant now() {
        return Instant.now().plus(skew);
    }

    public Duration skew() {
        return skew;
    }
}
