package dev.ax.domain.protocol;

import java.util.List;

/** Ask for up to {@code max} runs of the given groups, waiting up to {@code waitMillis} for one. */
public record Poll(String executorId, List<String> groups, int max, long waitMillis) {
    public Poll {
        groups = List.copyOf(groups);
    }
}
