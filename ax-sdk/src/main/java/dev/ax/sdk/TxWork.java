package dev.ax.sdk;

import java.sql.Connection;

/**
 * Work done inside the idempotency transaction (see {@link IdempotencyStore#runOnce}). Use the given
 * connection for every write that must happen at most once; do not commit, roll back or close it.
 * The returned text is recorded with the request id and returned again on a re-delivery.
 */
@FunctionalInterface
public interface TxWork {
    String run(Connection tx) throws Exception;
}
