package dev.ax.domain.protocol;

import java.util.List;

/** Lines of output from one attempt, in order, from one stream ({@code stdout} or {@code stderr}). */
public record LogChunk(String executorId, RunRef run, String stream, List<String> lines) {
    public LogChunk {
        lines = List.copyOf(lines);
    }
}
