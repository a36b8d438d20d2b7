package dev.ax.domain.task;

/**
 * {@code policy.sharding}: one run fans out into shards that executors claim separately, each
 * with {@code AX_SHARD_INDEX} / {@code AX_SHARD_TOTAL}, its own lease, log, exit code and retries.
 *
 * @param shards            a fixed number of shards; {@code null} with {@code broadcast}
 * @param broadcast         one shard per live executor of the task's group when the run starts (at least one)
 * @param maxParallelShards at most this many shards of one run RUNNING at once; {@code null} = no limit
 */
public record Sharding(Integer shards, boolean broadcast, Integer maxParallelShards) {
    public static final int MAX_SHARDS = 1_000;

    public Sharding {
        if (broadcast == (shards != null)) {
            throw new IllegalArgumentException("sharding is either a fixed number of shards or broadcast");
        }
        if (shards != null && (shards < 1 || shards > MAX_SHARDS)) {
            throw new IllegalArgumentException("shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
        if (maxParallelShards != null && maxParallelShards < 1) {
            throw new IllegalArgumentException("maxParallelShards must be at least 1, was " + maxParallelShards);
        }
    }

    public static Sharding fixed(int shards) {
        return new Sharding(shards, false, null);
    }

    public static Sharding broadcastToAll() {
        return new Sharding(null, true, null);
    }

    /** How many shards a run gets, given the live executors of its group when it starts. */
    public int total(int liveExecutors) {
        return broadcast ? Math.clamp(liveExecutors, 1, MAX_SHARDS) : shards;
    }
}
