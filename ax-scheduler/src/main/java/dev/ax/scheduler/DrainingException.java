package dev.ax.scheduler;

/** This node is stopping and hands out no more work; the API answers 503, so an executor asks another node. */
public final class DrainingException extends RuntimeException {
    public DrainingException(String nodeId) {
        super("node " + nodeId + " is stopping (draining): it hands out no more work; ask another node");
    }
}
