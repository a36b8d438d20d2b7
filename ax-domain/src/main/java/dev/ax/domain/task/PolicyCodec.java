package dev.ax.domain.task;

import static dev.ax.domain.task.JsonReader.path;

import dev.ax.domain.template.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The {@code policy} part of {@link TaskDefinitionCodec}. */
final class PolicyCodec {
    static final int MAX_RETRIES = 100;
    static final long MAX_RETRY_INTERVAL_SECONDS = 86_400;
    static final long MAX_TIMEOUT_SECONDS = 604_800; // a week
    static final int MAX_CONCURRENCY = 1_000;

    static final List<String> OVERFLOW_VALUES = List.of("QUEUE", "QUEUE_ONE", "SKIP", "REPLACE", "ALLOW");

    private static final Set<String> FIELDS = Set.of(
            "maxRetries",
            "retryIntervalSeconds",
            "timeoutSeconds",
            "misfire",
            "maxConcurrency",
            "retryable",
            "notifyOnFailure",
            "idempotencyKey",
            "overflow",
            "queueLimit",
            "retryBackoff",
            "retryMaxIntervalSeconds",
            "retryJitter",
            "onFailedActions",
            "approval",
            "notifyOnSuccess",
            "sharding",
            "retention");
    private static final Set<String> RETENTION_FIELDS = Set.of("runs", "failedRuns", "keepLast");
    private static final Set<String> RETRYABLE_FIELDS = Set.of("exitCodes", "timeout", "executorLost", "httpStatuses");

    private PolicyCodec() {}

    static Policy read(JsonReader in, Object value, Set<String> configuredChannels) {
        if (value == null) {
            return Policy.DEFAULT;
        }
        Map<String, Object> p = in.object(value, "policy");
        if (p == null) {
            return null;
        }
        in.rejectUnknown(p, "policy", FIELDS);
        // A field with an error falls back to its default here; parse throws before it is used.
        Integer maxRetries = in.int32(p.get("maxRetries"), "policy.maxRetries", 0, MAX_RETRIES);
        Long retryInterval =
                in.integer(p.get("retryIntervalSeconds"), "policy.retryIntervalSeconds", 0, MAX_RETRY_INTERVAL_SECONDS);
        Long timeout = in.integer(p.get("timeoutSeconds"), "policy.timeoutSeconds", 1, MAX_TIMEOUT_SECONDS);
        MisfirePolicy misfire = misfire(in, p.get("misfire"));
        Integer maxConcurrency = in.int32(p.get("maxConcurrency"), "policy.maxConcurrency", 1, MAX_CONCURRENCY);
        RetryRules retryable = retryable(in, p.get("retryable"));
        List<String> notify = notifyOnFailure(in, p.get("notifyOnFailure"), configuredChannels);
        String idempotencyKey = in.nonBlank(p.get("idempotencyKey"), "policy.idempotencyKey");
        if (idempotencyKey != null) {
            ActionCodec.templates(in, idempotencyKey, "policy.idempotencyKey", Target.KEY);
        }
        OverflowPolicy overflow = overflow(in, p.get("overflow"), "policy.overflow");
        // Integer, whatever number type came in, so the stored form is stable across round trips.
        Integer queueLimit = in.int32(p.get("queueLimit"), "policy.queueLimit", 0, Integer.MAX_VALUE);
        RetryBackoff backoff = backoff(in, p);
        List<FollowUp> onFailed = FollowUpCodec.read(in, p.get("onFailedActions"));
        Approval approval = ApprovalCodec.read(in, p.get("approval"));
        SuccessNotice notifyOnSuccess = successNotice(in, p.get("notifyOnSuccess"));
        Sharding sharding = ShardingCodec.read(in, p.get("sharding"));
        RunRetention retention = retention(in, p.get("retention"));
        return new Policy(
                maxRetries == null ? Policy.DEFAULT_MAX_RETRIES : maxRetries,
                retryInterval == null ? Policy.DEFAULT_RETRY_INTERVAL_SECONDS : retryInterval,
                timeout,
                misfire,
                maxConcurrency == null ? Policy.DEFAULT_MAX_CONCURRENCY : maxConcurrency,
                retryable,
                notify,
                idempotencyKey,
                overflow,
                queueLimit,
                backoff,
                onFailed,
                approval,
                notifyOnSuccess,
                sharding,
                retention);
    }

    static Map<String, Object> toJson(Policy policy) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("maxRetries", policy.maxRetries());
        p.put("retryIntervalSeconds", policy.retryIntervalSeconds());
        p.put("timeoutSeconds", policy.timeoutSeconds());
        p.put("misfire", policy.misfire().name());
        p.put("maxConcurrency", policy.maxConcurrency());
        p.put("retryable", retryableJson(policy.retryable()));
        p.put("notifyOnFailure", new ArrayList<>(policy.notifyOnFailure()));
        p.put("idempotencyKey", policy.idempotencyKey());
        p.put("overflow", policy.overflow().name());
        p.put("queueLimit", policy.queueLimit());
        p.put("retryBackoff", policy.backoff().exponential() ? "EXPONENTIAL" : "FIXED");
        p.put("retryMaxIntervalSeconds", policy.backoff().maxIntervalSeconds());
        p.put("retryJitter", policy.backoff().jitter());
        p.put("onFailedActions", FollowUpCodec.toJson(policy.onFailed()));
        p.put("approval", ApprovalCodec.toJson(policy.approval()));
        p.put("notifyOnSuccess", policy.notifyOnSuccess().name());
        if (policy.sharding() != null) {
            p.put("sharding", ShardingCodec.toJson(policy.sharding()));
        }
        if (!policy.retention().isNone()) {
            Map<String, Object> r = new LinkedHashMap<>();
            RunRetention retention = policy.retention();
            if (retention.runs() != null) {
                r.put("runs", RunRetention.format(retention.runs()));
            }
            if (retention.failedRuns() != null) {
                r.put("failedRuns", RunRetention.format(retention.failedRuns()));
            }
            if (retention.keepLast() != null) {
                r.put("keepLast", retention.keepLast());
            }
            p.put("retention", r);
        }
        return p;
    }

    /** {@code policy.retention}: {@code {"runs": "P30D", "failedRuns": "P180D", "keepLast": 100}}, every field optional. */
    private static RunRetention retention(JsonReader in, Object value) {
        Map<String, Object> r = in.object(value, "policy.retention");
        if (r == null) {
            return RunRetention.NONE;
        }
        in.rejectUnknown(r, "policy.retention", RETENTION_FIELDS);
        Duration runs = period(in, r.get("runs"), "policy.retention.runs");
        Duration failedRuns = period(in, r.get("failedRuns"), "policy.retention.failedRuns");
        Integer keepLast = in.int32(r.get("keepLast"), "policy.retention.keepLast", 0, RunRetention.MAX_KEEP_LAST);
        return new RunRetention(runs, failedRuns, keepLast);
    }

    private static Duration period(JsonReader in, Object value, String field) {
        Duration d = in.duration(value, field);
        if (d != null && d.compareTo(RunRetention.MAX_PERIOD) > 0) {
            in.error(field, "must be at most " + RunRetention.MAX_PERIOD.toDays() + " days (P3650D)");
            return null;
        }
        return d;
    }

    private static MisfirePolicy misfire(JsonReader in, Object value) {
        String s = in.string(value, "policy.misfire");
        if (s == null) {
            return MisfirePolicy.FIRE_ONCE;
        }
        try {
            return MisfirePolicy.valueOf(s.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            in.error(
                    "policy.misfire",
                    "must be one of "
                            + String.join(
                                    ", ",
                                    Arrays.stream(MisfirePolicy.values())
                                            .map(Enum::name)
                                            .toList()));
            return MisfirePolicy.FIRE_ONCE;
        }
    }

    private static RetryRules retryable(JsonReader in, Object value) {
        return switch (value) {
            case null -> RetryRules.ALL;
            case Boolean b -> b ? RetryRules.ALL : RetryRules.NONE;
            case Map<?, ?> m -> retryRules(in, in.object(m, "policy.retryable"));
            default -> {
                in.error("policy.retryable", "must be true, false or an object such as {\"exitCodes\": [1, 75]}");
                yield RetryRules.ALL;
            }
        };
    }

    private static RetryRules retryRules(JsonReader in, Map<String, Object> r) {
        if (r == null) {
            return RetryRules.ALL;
        }
        in.rejectUnknown(r, "policy.retryable", RETRYABLE_FIELDS);
        Set<Integer> exitCodes = new TreeSet<>();
        List<Object> codes = in.array(r.get("exitCodes"), "policy.retryable.exitCodes");
        if (codes != null) {
            for (int i = 0; i < codes.size(); i++) {
                String field = path("policy.retryable.exitCodes", i);
                if (codes.get(i) == null) {
                    in.error(field, "must be an integer");
                }
                Integer code = in.int32(codes.get(i), field, 1, 255);
                if (code != null) {
                    exitCodes.add(code);
                }
            }
        }
        Set<Integer> httpStatuses = new TreeSet<>();
        List<Object> statuses = in.array(r.get("httpStatuses"), "policy.retryable.httpStatuses");
        if (statuses != null) {
            for (int i = 0; i < statuses.size(); i++) {
                Integer status = in.int32(statuses.get(i), path("policy.retryable.httpStatuses", i), 100, 599);
                if (status != null) {
                    httpStatuses.add(status);
                }
            }
        }
        Boolean timeout = in.bool(r.get("timeout"), "policy.retryable.timeout");
        Boolean executorLost = in.bool(r.get("executorLost"), "policy.retryable.executorLost");
        return new RetryRules(
                true, exitCodes, timeout == null || timeout, executorLost == null || executorLost, httpStatuses);
    }

    /** {@code true} and {@code false} for the two common rule sets, the object form otherwise. */
    private static Object retryableJson(RetryRules rules) {
        if (rules.equals(RetryRules.ALL)) {
            return true;
        }
        if (!rules.enabled()) {
            return false;
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("exitCodes", new ArrayList<>(new TreeSet<>(rules.exitCodes())));
        r.put("timeout", rules.timeout());
        r.put("executorLost", rules.executorLost());
        r.put("httpStatuses", new ArrayList<>(new TreeSet<>(rules.httpStatuses())));
        return r;
    }

    private static List<String> notifyOnFailure(JsonReader in, Object value, Set<String> configuredChannels) {
        List<Object> raw = in.array(value, "policy.notifyOnFailure");
        List<String> channels = new ArrayList<>();
        if (raw == null) {
            return channels;
        }
        for (int i = 0; i < raw.size(); i++) {
            String field = path("policy.notifyOnFailure", i);
            if (raw.get(i) == null) {
                in.error(field, "must be a string");
                continue;
            }
            String channel = in.nonBlank(raw.get(i), field);
            if (channel == null) {
                continue;
            }
            channels.add(channel);
            if (!configuredChannels.contains(channel)) {
                in.warn(field + ": channel '" + channel + "' is not configured on this server;"
                        + " no alert will be sent through it until it is");
            }
        }
        return channels;
    }

    private static OverflowPolicy overflow(JsonReader in, Object value, String field) {
        String s = in.string(value, field);
        if (s == null) {
            return Policy.DEFAULT_OVERFLOW;
        }
        // Case-insensitive like misfire; stored upper-case so every spelling means one thing.
        String upper = s.strip().toUpperCase(Locale.ROOT);
        if (!OVERFLOW_VALUES.contains(upper)) {
            in.error(field, "must be one of " + String.join(", ", OVERFLOW_VALUES));
            return Policy.DEFAULT_OVERFLOW;
        }
        return OverflowPolicy.valueOf(upper);
    }

    private static SuccessNotice successNotice(JsonReader in, Object value) {
        String s = in.string(value, "policy.notifyOnSuccess");
        if (s == null) {
            return SuccessNotice.NEVER;
        }
        try {
            return SuccessNotice.valueOf(s.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            in.error("policy.notifyOnSuccess", "must be one of NEVER, RECOVERY, ALWAYS");
            return SuccessNotice.NEVER;
        }
    }

    private static RetryBackoff backoff(JsonReader in, Map<String, Object> p) {
        String kind = in.string(p.get("retryBackoff"), "policy.retryBackoff");
        boolean exponential = false;
        if (kind != null) {
            switch (kind.strip().toUpperCase(Locale.ROOT)) {
                case "FIXED" -> exponential = false;
                case "EXPONENTIAL" -> exponential = true;
                default -> in.error("policy.retryBackoff", "must be one of FIXED, EXPONENTIAL");
            }
        }
        Long max = in.integer(
                p.get("retryMaxIntervalSeconds"), "policy.retryMaxIntervalSeconds", 1, MAX_RETRY_INTERVAL_SECONDS);
        double jitter = 0;
        Object j = p.get("retryJitter");
        if (j != null) {
            if (j instanceof Number n
                    && !(j instanceof Double d && (d.isNaN() || d.isInfinite()))
                    && n.doubleValue() >= 0
                    && n.doubleValue() <= 1) {
                jitter = n.doubleValue();
            } else {
                in.error("policy.retryJitter", "must be a number between 0 and 1 (a fraction of the wait)");
            }
        }
        return new RetryBackoff(exponential, max, jitter);
    }
}
