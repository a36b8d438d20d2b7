package dev.ax.spring;

import dev.ax.sdk.IdempotencyStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The AX starter: {@link AxJob} methods become handlers of a worker that starts and stops with the
 * application ({@code ax.*} properties), and {@code ctx.runOnce} records request ids through an
 * {@link IdempotencyStore} on the application's DataSource, inside its Spring transactions.
 * {@code ax.enabled=false} turns it all off. An application may declare its own {@link IdempotencyStore} bean.
 */
@AutoConfiguration(
        afterName = {
            // Spring Boot 4 and 3 names: the DataSource and its transaction manager must exist before we look for them.
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration"
        })
@ConditionalOnProperty(prefix = "ax", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(AxProperties.class)
public class AxAutoConfiguration {

    static final String SPRING_JDBC = "org.springframework.jdbc.datasource.DataSourceUtils";

    /** Static: a BeanPostProcessor must exist before the beans it looks at, without this configuration's. */
    @Bean
    static AxJobRegistry axJobRegistry() {
        return new AxJobRegistry();
    }

    @Bean
    @ConditionalOnMissingBean
    AxWorkerLifecycle axWorkerLifecycle(
            AxProperties properties, AxJobRegistry jobs, ObjectProvider<IdempotencyStore> store) {
        return new AxWorkerLifecycle(properties, jobs, store.getIfUnique());
    }

    /** With Spring JDBC: runOnce joins Spring's transactions (the application's transaction manager, when it has one). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = SPRING_JDBC)
    @ConditionalOnBean(DataSource.class)
    static class SpringJdbcIdempotency {
        @Bean
        @ConditionalOnMissingBean
        IdempotencyStore axIdempotencyStore(
                DataSource dataSource, ObjectProvider<PlatformTransactionManager> transactions) {
            PlatformTransactionManager tm =
                    transactions.getIfUnique(() -> new DataSourceTransactionManager(dataSource));
            return new IdempotencyStore(dataSource, new SpringJdbcTransactions(dataSource, tm));
        }
    }

    /** A DataSource without Spring JDBC on the classpath: plain JDBC transactions. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(SPRING_JDBC)
    @ConditionalOnBean(DataSource.class)
    static class PlainJdbcIdempotency {
        @Bean
        @ConditionalOnMissingBean
        IdempotencyStore axIdempotencyStore(DataSource dataSource) {
            return new IdempotencyStore(dataSource);
        }
    }
}
