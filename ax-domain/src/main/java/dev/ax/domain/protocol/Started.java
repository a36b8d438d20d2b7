package dev.ax.domain.protocol;

/** The action's process is up: its pid goes on the instance. */
public record Started(String executorId, RunRef run, long pid) {}
