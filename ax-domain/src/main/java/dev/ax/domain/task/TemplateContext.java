package dev.ax.domain.task;

import java.time.Instant;
import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link Templates#render} fills {@code {{...}}} variables from: one attempt of one run.
 *
 * @param scheduledAt the slot the run belongs to (for event runs, when it was triggered); the
 *                    date variables come from it, never from the wall clock, so a retry or a late
 *                    catch-up run renders the same dates as an on-time run would have
 * @param zone        the trigger's time zone: {@code {{date}}} is the slot's date there
 * @param params      trigger parameters ({@code {{params.NAME}}}); JSON values, nulls allowed
 * @param requestId   the API request that triggered the run; {@code null} for scheduled runs
 */
public record TemplateContext(
        String taskName,
        Instant scheduledAt,
        ZoneId zone,
        Map<String, Object> params,
        long instanceId,
        int attempt,
        String requestId) {

    public TemplateContext {
        Objects.requireNonNull(taskName, "taskName");
        Objects.requireNonNull(scheduledAt, "scheduledAt");
        Objects.requireNonNull(zone, "zone");
        // Not Map.copyOf: JSON parameters may hold nulls, which it rejects.
        params = params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }
}
