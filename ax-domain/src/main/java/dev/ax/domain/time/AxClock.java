package dev.ax.domain.time;

import java.time.Instant;

/**
 * The one way AX code asks for the time. Production nodes use the database's clock
 * (see {@code DatabaseClock} in the store); tests use {@link SettableClock}.
 * Nothing else may call {@code Instant.now()} or {@code System.currentTimeMillis()}:
 * an ArchUnit rule enforces it.
 */
@FunctionalInterface
public interface AxClock {
    Instant now();
}
