package dev.ax.store;

import java.time.Instant;
import java.util.List;

public record ExecutorRow(
        String id,
        String session,
        List<String> groups,
        String host,
        Long pid,
        String version,
        Instant startedAt,
        Instant lastSeenAt) {}
