package dev.ax.domain.protocol;

/** One attempt of one instance: the unit a lease and a fencing token are about. */
public record RunRef(long instanceId, int attempt) {
}
