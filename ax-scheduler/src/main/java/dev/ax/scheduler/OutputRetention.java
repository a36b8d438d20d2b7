package dev.ax.scheduler;

import dev.ax.store.HistoryPartitions;
import dev.ax.store.LogStore;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * History retention's side of run output past {@code --retention-logs}: on PostgreSQL whole days of it dropped with
 * their partitions, and elsewhere (and in a day that still holds output someone needs) expired chunks walked by id and
 * deleted. Its cursor and what it learnt of the partitions are this node's; only the retention loop's thread calls it.
 */
final class OutputRetention {
    private static final Logger LOG = LoggerFactory.getLogger(OutputRetention.class);

    private final NodeContext ctx;
    private long logCursor;
    private LocalDate partitionsMadeOn;
    /** Output partitions past their period that held output still needed, and when to read each again. */
    private final Map<String, Instant> stillNeeded = new HashMap<>();
    /** Chunks the current round may still look at. */
    private int budget;

    OutputRetention(NodeContext ctx) {
        this.ctx = ctx;
    }

    /** What a round did: the chunks that went (dropped or deleted) and how many it looked at. */
    record Swept(long chunks, int looked) {}

    /**
     * Output of runs that ended before {@code before}, looking at {@code budget} chunks at most. Where output is
     * partitioned by day (PostgreSQL), a day entirely before it goes whole, its partition dropped (costing no budget),
     * unless it holds output that has not expired; the walk then deletes row by row only in such days and in the
     * partition of output written before partitioning began. Elsewhere the walk deletes every expired chunk.
     */
    Swept expire(Instant now, Instant before, int budget) {
        this.budget = budget;
        long chunks = expireLogs(now, before);
        return new Swept(chunks, budget - this.budget);
    }

    private long expireLogs(Instant now, Instant before) {
        HistoryPartitions partitions = ctx.store().partitions();
        if (!partitions.partitioned()) {
            return walkLogs(before, before, Set.of());
        }
        makePartitionsAhead();
        long dropped = 0;
        int days = 0;
        // Days whose output all expired but which another node is reading or dropping: theirs, not the walk's.
        Set<LocalDate> othersDays = new HashSet<>();
        for (HistoryPartitions.Partition p : ctx.store().tx(partitions::list)) {
            if (p.to().isAfter(before)) {
                break;
            }
            Instant recheck = stillNeeded.get(p.name());
            if (recheck != null && recheck.isAfter(now)) {
                continue;
            }
            Optional<HistoryPartitions.Contents> in = ctx.store().tx(tx -> partitions.contents(tx, p.name(), before));
            if (in.isPresent() && in.get().live() > 0) {
                // Read again after a while, not every round: meanwhile the walk deletes what expired in it.
                stillNeeded.put(p.name(), now.plus(ctx.config().retention().rewalk()));
            }
            if (in.isEmpty() || in.get().live() > 0) {
                continue;
            }
            stillNeeded.remove(p.name());
            if (partitions.drop(p.name())) {
                dropped += in.get().chunks();
                days++;
            } else if (p.from() != null) {
                othersDays.add(LocalDate.ofInstant(p.from(), ZoneOffset.UTC));
            }
        }
        if (days > 0) {
            LOG.info("retention: dropped {} partitions of expired output ({} chunks)", days, dropped);
        }
        // The days left before the cut hold output still needed: the walk deletes what expired in them.
        return dropped + walkLogs(before.truncatedTo(ChronoUnit.DAYS), before, othersDays);
    }

    /**
     * Makes the coming days' output partitions, once a day per node (and at its start): output is never written to a
     * day that has no partition.
     */
    void makePartitionsAhead() {
        HistoryPartitions partitions = ctx.store().partitions();
        if (!partitions.partitioned()) {
            return;
        }
        LocalDate today = LocalDate.ofInstant(ctx.clock().now(), ZoneOffset.UTC);
        if (today.equals(partitionsMadeOn)) {
            return;
        }
        int made = ctx.store().tx(tx -> partitions.makeAhead(tx, HistoryPartitions.DAYS_AHEAD));
        if (made > 0) {
            LOG.info("retention: made {} partitions for the output of the coming days", made);
        }
        partitionsMadeOn = today;
    }

    /**
     * Deletes the output of runs that ended before {@code endedBefore}. Chunks are walked by id from where the last
     * round stopped up to the first one written since {@code writtenBefore} (a run ends after its output): the walk
     * never passes a chunk of a run still going, nor one of the {@code skipDays} (UTC), so that it is judged again.
     */
    private long walkLogs(Instant writtenBefore, Instant endedBefore, Set<LocalDate> skipDays) {
        long deleted = 0;
        boolean pinned = false; // a chunk of a run still going: the cursor stays before it
        long after = logCursor;
        while (budget > 0) {
            long from = after;
            List<LogStore.ChunkAge> page =
                    ctx.store().tx(tx -> ctx.store().logs().chunksAfter(tx, from, Retention.PAGE));
            List<Long> expired = new ArrayList<>();
            boolean done = page.size() < Retention.PAGE;
            for (LogStore.ChunkAge c : page) {
                if (!c.at().isBefore(writtenBefore)) {
                    done = true;
                    break;
                }
                budget--;
                after = c.id();
                boolean skipped = !skipDays.isEmpty() && skipDays.contains(LocalDate.ofInstant(c.at(), ZoneOffset.UTC));
                if (!skipped
                        && (c.runGone()
                                || (c.runEndedAt() != null && c.runEndedAt().isBefore(endedBefore)))) {
                    expired.add(c.id());
                } else if (!pinned) {
                    pinned = true;
                    logCursor = c.id() - 1;
                }
                if (!pinned) {
                    logCursor = c.id();
                }
            }
            if (!expired.isEmpty()) {
                ctx.store().tx(tx -> {
                    ctx.store().logs().delete(tx, expired);
                    return null;
                });
                deleted += expired.size();
            }
            if (done) {
                break;
            }
        }
        return deleted;
    }
}
