package dev.ax.domain.protocol;

import java.util.List;

/**
 * @param renewed runs whose lease was extended
 * @param abandon runs the executor must stop: their lease was lost or they were terminated; any
 *                report about them will be refused
 */
public record HeartbeatAnswer(List<RunRef> renewed, List<RunRef> abandon) {
    public HeartbeatAnswer {
        renewed = List.copyOf(renewed);
        abandon = List.copyOf(abandon);
    }
}
