package dev.ax.spring;

import dev.ax.sdk.JdbcTransactions;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs {@code runOnce} in a Spring-managed transaction, on the connection Spring binds to it: a
 * {@code JdbcTemplate} (or anything else on the same DataSource and transaction manager) used inside
 * {@code ctx.runOnce(...)} takes part in the same transaction as the idempotency record, so they commit
 * or roll back together. Always a new transaction: the record must commit with exactly this work.
 */
public class SpringJdbcTransactions implements JdbcTransactions {

    private final DataSource dataSource;
    private final TransactionTemplate template;

    public SpringJdbcTransactions(DataSource dataSource, PlatformTransactionManager transactionManager) {
        this.dataSource = dataSource;
        this.template = new TransactionTemplate(transactionManager);
        this.template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    @Override
    public <T> T inTransaction(Work<T> work) throws Exception {
        try {
            return template.execute(status -> {
                Connection connection = DataSourceUtils.getConnection(dataSource);
                try {
                    return work.run(connection);
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Exception e) {
                    throw new Checked(e); // TransactionTemplate rolls back on unchecked exceptions only
                } finally {
                    DataSourceUtils.releaseConnection(connection, dataSource);
                }
            });
        } catch (Checked c) {
            throw c.exception;
        }
    }

    /** Carries a checked exception out of the template, which rolls back for it. */
    private static final class Checked extends RuntimeException {
        final Exception exception;

        Checked(Exception exception) {
            super(exception.getMessage(), exception, false, false);
            this.exception = exception;
        }
    }
}
