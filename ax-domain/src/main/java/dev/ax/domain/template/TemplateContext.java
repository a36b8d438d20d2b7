package dev.ax.domain.template;

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
 * @param secrets     the values of the secrets the work refers to ({@code {{secret.NAME}}}), resolved
 *                    only when the work is handed to its executor; empty everywhere else
 */
public record TemplateContext(
        String taskName,
        Instant scheduledAt,
        ZoneId zone,
        Map<String, Object> params,
        long instanceId,
        int attempt,
        String requestId,
        Map<String, String> secrets) {

    public TemplateContext {
        Objects.requireNonNull(taskName, "taskName");
        Objects.requireNonNull(scheduledAt, "scheduledAt");
        Objects.requireNonNull(zone, "zone");
        // Not Map.copyOf: JSON parameters may hold nulls, which it rejects.
        params = params == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(params));
        secrets = secrets == null ? Map.of() : Map.copyOf(secrets);
    }

    /** A context without secrets: a {@code {{secret.NAME}}} in what it renders fails as not set. */
    public TemplateContext(
            String taskName,
            Instant scheduledAt,
            ZoneId zone,
            Map<String, Object> params,
            long instanceId,
            int attempt,
            String requestId) {
        this(taskName, scheduledAt, zone, params, instanceId, attempt, requestId, Map.of());
    }

    public TemplateContext withSecrets(Map<String, String> values) {
        return new TemplateContext(taskName, scheduledAt, zone, params, instanceId, attempt, requestId, values);
    }

    public TemplateContext withParams(Map<String, Object> values) {
        return new TemplateContext(taskName, scheduledAt, zone, values, instanceId, attempt, requestId, secrets);
    }
}
