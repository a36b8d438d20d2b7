package dev.ax.domain.protocol;

/**
 * Where a run the executor holds stands now: {@code RUNNING}, {@code WAITING_APPROVAL}, or the
 * state that ended it. The answer is a {@link ReportAnswer} whose reason carries the state name.
 */
public record RunStateQuery(String executorId, RunRef run) {}
