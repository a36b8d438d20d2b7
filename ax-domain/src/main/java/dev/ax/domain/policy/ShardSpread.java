package dev.ax.domain.policy;

import java.util.Collection;

/**
 * May this executor take one more shard of this run now? A pure function of what the caller
 * reads in the claim transaction.
 *
 * <p>The rule ("no executor takes two shards while another of the group is idle, when
 * possible"):
 * <ol>
 *   <li>never more RUNNING shards of the run than {@code maxParallelShards};</li>
 *   <li>an executor takes at most one shard of a run per poll (enforced by the caller);</li>
 *   <li>an executor that already runs {@code mine} shards of the run takes another only if no
 *       other live executor of the group runs fewer — unless the shard has waited longer than the
 *       spread grace: then the others are busy with other work (or not polling), and leaving the
 *       shard waiting would spread nothing, only delay it.</li>
 * </ol>
 *
 * @param take   whether to claim a shard of the run
 * @param reason why not, for logs and tests
 */
public record ShardSpread(boolean take, String reason) {
    private static final ShardSpread YES = new ShardSpread(true, "ok");

    /**
     * @param running           RUNNING shards of the run, on every executor
     * @param maxParallelShards the policy's limit, {@code null} for none
     * @param mine              RUNNING shards of the run on the executor asking
     * @param others            RUNNING shards of the run on each other live executor of the group (0 for an idle one)
     * @param waitedPastGrace   the shard has been claimable for longer than the spread grace
     */
    public static ShardSpread decide(
            int running, Integer maxParallelShards, int mine, Collection<Integer> others, boolean waitedPastGrace) {
        if (maxParallelShards != null && running >= maxParallelShards) {
            return new ShardSpread(false, "maxParallelShards " + maxParallelShards + " shards are running");
        }
        if (mine == 0 || waitedPastGrace) {
            return YES;
        }
        for (int other : others) {
            if (other < mine) {
                return new ShardSpread(false, "another live executor of the group runs fewer shards of this run");
            }
        }
        return YES;
    }
}
