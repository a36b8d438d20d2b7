package dev.ax.domain.schedule;

import java.time.Instant;
import java.util.Optional;

/** A schedule is just {@code next(t)}: the first slot strictly after {@code t}, if any. */
@FunctionalInterface
public interface Schedule {
    Schedule NEVER = after -> Optional.empty();

    Optional<Instant> nextAfter(Instant after);
}
