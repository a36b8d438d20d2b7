package dev.ax.alerts;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which chunks of an oversized run log to drop: a pure plan over (chunk id, size). The first and
 * the last half of the cap are kept (how it started, how it ended: where the error usually is);
 * the first dropped chunk becomes a marker line saying so, in place, and the rest of the middle is
 * deleted. A log that keeps growing is cut again between the marker and its new tail.
 */
final class LogCap {
    static final String MARKER_PREFIX = "[ax] output removed here";

    record Chunk(long id, long bytes, boolean marker) {}

    /**
     * @param markerId the chunk to turn into the marker, or null when the log already has one
     * @param delete   chunks to delete
     * @param removed  bytes of output removed by this plan
     */
    record Plan(Long markerId, List<Long> delete, long removed) {}

    private LogCap() {}

    static Optional<Plan> plan(List<Chunk> chunks, long cap) {
        long total = chunks.stream().mapToLong(Chunk::bytes).sum();
        if (total <= cap) {
            return Optional.empty();
        }
        long half = cap / 2;
        int marker = -1;
        for (int i = 0; i < chunks.size(); i++) {
            if (chunks.get(i).marker()) {
                marker = i;
                break;
            }
        }
        int middleFrom;
        if (marker >= 0) {
            middleFrom = marker + 1;
        } else {
            long head = 0;
            middleFrom = 0;
            while (middleFrom < chunks.size() && head + chunks.get(middleFrom).bytes() <= half) {
                head += chunks.get(middleFrom).bytes();
                middleFrom++;
            }
        }
        long tail = 0;
        int tailFrom = chunks.size();
        while (tailFrom > middleFrom && tail + chunks.get(tailFrom - 1).bytes() <= half) {
            tail += chunks.get(tailFrom - 1).bytes();
            tailFrom--;
        }
        if (tailFrom <= middleFrom) {
            return Optional.empty();
        }
        List<Long> delete = new ArrayList<>();
        long removed = 0;
        for (int i = middleFrom; i < tailFrom; i++) {
            removed += chunks.get(i).bytes();
            delete.add(chunks.get(i).id());
        }
        Long markerId = null;
        if (marker < 0) {
            markerId = delete.removeFirst();
        }
        return Optional.of(new Plan(markerId, delete, removed));
    }

    static String markerText(long cap) {
        return MARKER_PREFIX + ": this run's output went over the per-run cap of " + mb(cap) + "; its first and last "
                + mb(cap / 2) + " are kept";
    }

    private static String mb(long bytes) {
        return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MB" : Math.round(bytes / 1024.0) + " KB";
    }
}
