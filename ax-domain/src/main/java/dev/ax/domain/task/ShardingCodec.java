package dev.ax.domain.task;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code policy.sharding}: {@code {"shards": N}} or {@code {"mode": "broadcast"}}, with an optional {@code maxParallelShards}. */
final class ShardingCodec {
    private static final Set<String> FIELDS = Set.of("shards", "mode", "maxParallelShards");

    private ShardingCodec() {}

    static Sharding read(JsonReader in, Object value) {
        if (value == null) {
            return null;
        }
        Map<String, Object> s = in.object(value, "policy.sharding");
        if (s == null) {
            return null;
        }
        in.rejectUnknown(s, "policy.sharding", FIELDS);
        Integer shards = in.int32(s.get("shards"), "policy.sharding.shards", 1, Sharding.MAX_SHARDS);
        Integer maxParallel =
                in.int32(s.get("maxParallelShards"), "policy.sharding.maxParallelShards", 1, Integer.MAX_VALUE);
        String mode = in.string(s.get("mode"), "policy.sharding.mode");
        boolean broadcast = false;
        if (mode != null) {
            if (!"BROADCAST".equals(mode.strip().toUpperCase(Locale.ROOT))) {
                in.error("policy.sharding.mode", "must be \"broadcast\" (one shard per live executor of the group)");
                return null;
            }
            broadcast = true;
        }
        if (broadcast && s.get("shards") != null) {
            in.error(
                    "policy.sharding.shards",
                    "must not be set with mode \"broadcast\" (the shard count is the number of live executors)");
            return null;
        }
        if (!broadcast && s.get("shards") == null) {
            in.error(
                    "policy.sharding.shards",
                    "is required: a number of shards between 1 and " + Sharding.MAX_SHARDS
                            + ", or set \"mode\": \"broadcast\"");
            return null;
        }
        if ((!broadcast && shards == null) || (s.get("maxParallelShards") != null && maxParallel == null)) {
            return null; // the error is already recorded
        }
        return new Sharding(broadcast ? null : shards, broadcast, maxParallel);
    }

    static Map<String, Object> toJson(Sharding sharding) {
        Map<String, Object> s = new LinkedHashMap<>();
        if (sharding.broadcast()) {
            s.put("mode", "broadcast");
        } else {
            s.put("shards", sharding.shards());
        }
        s.put("maxParallelShards", sharding.maxParallelShards());
        return s;
    }
}
