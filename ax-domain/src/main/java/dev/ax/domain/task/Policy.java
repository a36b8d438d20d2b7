package dev.ax.domain.task;

import java.util.List;

/**
 * How runs of a task are treated.
 *
 * @param timeoutSeconds {@code null} means no timeout
 * @param overflow       what a run does when {@code maxConcurrency} runs are active
 * @param queueLimit     at most this many BLOCKED runs with {@code QUEUE}; {@code null} = no limit
 * @param backoff        how the wait between attempts grows
 * @param onFailed       what happens once a run has failed for good
 * @param approval       a person approves each run before it starts; {@code null} = no gate
 * @param notifyOnSuccess whether successes are told to the {@code notifyOnFailure} channels too
 * @param sharding       fan each run out into shards ({@code policy.sharding}); {@code null} = one process per run
 * @param retention      how long the task's runs are kept ({@code policy.retention}); {@link RunRetention#NONE}: the server's defaults
 */
public record Policy(
        int maxRetries,
        long retryIntervalSeconds,
        Long timeoutSeconds,
        MisfirePolicy misfire,
        int maxConcurrency,
        RetryRules retryable,
        List<String> notifyOnFailure,
        String idempotencyKey,
        OverflowPolicy overflow,
        Integer queueLimit,
        RetryBackoff backoff,
        List<FollowUp> onFailed,
        Approval approval,
        SuccessNotice notifyOnSuccess,
        Sharding sharding,
        RunRetention retention) {

    public static final int DEFAULT_MAX_RETRIES = 0;
    public static final long DEFAULT_RETRY_INTERVAL_SECONDS = 60;
    public static final int DEFAULT_MAX_CONCURRENCY = 1;

    public static final OverflowPolicy DEFAULT_OVERFLOW = OverflowPolicy.QUEUE;

    public static final Policy DEFAULT = new Policy(
            DEFAULT_MAX_RETRIES,
            DEFAULT_RETRY_INTERVAL_SECONDS,
            null,
            MisfirePolicy.FIRE_ONCE,
            DEFAULT_MAX_CONCURRENCY,
            RetryRules.ALL,
            List.of(),
            null);

    /** A policy with the default overflow and backoff. */
    public Policy(
            int maxRetries,
            long retryIntervalSeconds,
            Long timeoutSeconds,
            MisfirePolicy misfire,
            int maxConcurrency,
            RetryRules retryable,
            List<String> notifyOnFailure,
            String idempotencyKey) {
        this(
                maxRetries,
                retryIntervalSeconds,
                timeoutSeconds,
                misfire,
                maxConcurrency,
                retryable,
                notifyOnFailure,
                idempotencyKey,
                DEFAULT_OVERFLOW,
                null,
                RetryBackoff.FIXED,
                List.of(),
                null,
                SuccessNotice.NEVER);
    }

    /** A policy without sharding. */
    public Policy(
            int maxRetries,
            long retryIntervalSeconds,
            Long timeoutSeconds,
            MisfirePolicy misfire,
            int maxConcurrency,
            RetryRules retryable,
            List<String> notifyOnFailure,
            String idempotencyKey,
            OverflowPolicy overflow,
            Integer queueLimit,
            RetryBackoff backoff,
            List<FollowUp> onFailed,
            Approval approval,
            SuccessNotice notifyOnSuccess) {
        this(
                maxRetries,
                retryIntervalSeconds,
                timeoutSeconds,
                misfire,
                maxConcurrency,
                retryable,
                notifyOnFailure,
                idempotencyKey,
                overflow,
                queueLimit,
                backoff,
                onFailed,
                approval,
                notifyOnSuccess,
                null,
                RunRetention.NONE);
    }

    /** A policy with the server's retention. */
    public Policy(
            int maxRetries,
            long retryIntervalSeconds,
            Long timeoutSeconds,
            MisfirePolicy misfire,
            int maxConcurrency,
            RetryRules retryable,
            List<String> notifyOnFailure,
            String idempotencyKey,
            OverflowPolicy overflow,
            Integer queueLimit,
            RetryBackoff backoff,
            List<FollowUp> onFailed,
            Approval approval,
            SuccessNotice notifyOnSuccess,
            Sharding sharding) {
        this(
                maxRetries,
                retryIntervalSeconds,
                timeoutSeconds,
                misfire,
                maxConcurrency,
                retryable,
                notifyOnFailure,
                idempotencyKey,
                overflow,
                queueLimit,
                backoff,
                onFailed,
                approval,
                notifyOnSuccess,
                sharding,
                RunRetention.NONE);
    }

    public Policy {
        notifyOnFailure = notifyOnFailure == null ? List.of() : List.copyOf(notifyOnFailure);
        misfire = misfire == null ? MisfirePolicy.FIRE_ONCE : misfire;
        retryable = retryable == null ? RetryRules.ALL : retryable;
        overflow = overflow == null ? DEFAULT_OVERFLOW : overflow;
        backoff = backoff == null ? RetryBackoff.FIXED : backoff;
        onFailed = onFailed == null ? List.of() : List.copyOf(onFailed);
        notifyOnSuccess = notifyOnSuccess == null ? SuccessNotice.NEVER : notifyOnSuccess;
        retention = retention == null ? RunRetention.NONE : retention;
    }

    /** True when a task may have any number of active runs. */
    public boolean unlimited() {
        return overflow == OverflowPolicy.ALLOW;
    }

    /** Attempts in all: the first one plus the retries. */
    public int maxAttempts() {
        return maxRetries + 1;
    }
}
