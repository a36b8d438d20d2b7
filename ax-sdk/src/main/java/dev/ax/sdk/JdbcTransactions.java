package dev.ax.sdk;

import java.sql.Connection;

/**
 * How {@link IdempotencyStore} gets a transaction. The default runs one plain JDBC transaction on
 * a connection of its own; a framework can supply its own so that code inside
 * {@link AxContext#runOnce} which uses the framework (a Spring {@code JdbcTemplate}, say) joins the
 * same transaction: the Spring Boot starter does that.
 */
@FunctionalInterface
public interface JdbcTransactions {

    /**
     * Runs {@code work} in a new transaction and commits when it returns; rolls back when it throws
     * and lets the exception through unchanged.
     */
    <T> T inTransaction(Work<T> work) throws Exception;

    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws Exception;
    }
}
