package dev.ax.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.sdk.AxContext;
import dev.ax.sdk.IdempotencyStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What the starter wires, and how it refuses a bad setup before anything runs. */
class AxAutoConfigurationTest {

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(AxAutoConfiguration.class));

    private final ApplicationContextRunner withDatabase = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    AxAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:autoconfig;DB_CLOSE_DELAY=-1");

    static class Jobs {
        @AxJob("syncOrders")
        String sync(AxContext ctx) {
            return "synced";
        }

        @AxJob("ping")
        void ping() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class JobsConfig {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class BadSignature {
        @AxJob("bad")
        String bad(String notAContext) {
            return notAContext;
        }
    }

    static class SameNameAgain {
        @AxJob("syncOrders")
        String again(AxContext ctx) {
            return "again";
        }
    }

    @Test
    void an_application_without_jobs_runs_no_worker_and_needs_no_settings() {
        runner.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(AxWorkerLifecycle.class).isRunning()).isFalse();
            assertThat(ctx).doesNotHaveBean(IdempotencyStore.class);
        });
    }

    @Test
    void finds_the_annotated_methods_of_beans() {
        runner.withUserConfiguration(JobsConfig.class)
                .withPropertyValues(
                        "ax.server-url=http://127.0.0.1:1", "ax.token=t", "ax.group=orders", "ax.fail-fast=false")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(AxJobRegistry.class).handlers()).containsOnlyKeys("syncOrders", "ping");
                    assertThat(ctx.getBean(AxJobRegistry.class)
                                    .handlers()
                                    .get("syncOrders")
                                    .handle(null))
                            .isEqualTo("synced");
                    assertThat(ctx.getBean(AxWorkerLifecycle.class).worker().handlerNames())
                            .containsOnly("syncOrders", "ping");
                });
    }

    @Test
    void a_data_source_gets_an_idempotency_store_in_its_transactions() {
        withDatabase.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx).hasSingleBean(IdempotencyStore.class);
        });
    }

    @Test
    void jobs_without_a_server_url_fail_the_start_naming_the_property() {
        runner.withUserConfiguration(JobsConfig.class)
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(
                                "ax.server-url is required to run the @AxJob handlers [syncOrders, ping]"));
        runner.withUserConfiguration(JobsConfig.class)
                .withPropertyValues("ax.server-url=http://ax:7070", "ax.token=t")
                .run(ctx -> assertThat(ctx).getFailure().rootCause().hasMessageContaining("ax.group is required"));
    }

    @Test
    void a_method_that_does_not_take_a_context_fails_the_start() {
        runner.withBean(BadSignature.class)
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("@AxJob method")
                        .hasMessageContaining(".bad must take an AxContext or nothing"));
    }

    @Test
    void two_jobs_with_one_name_fail_the_start_naming_both() {
        runner.withUserConfiguration(JobsConfig.class)
                .withBean(SameNameAgain.class)
                .run(ctx -> assertThat(ctx)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("two @AxJob methods are named 'syncOrders'")
                        .hasMessageContaining("jobs.sync")
                        .hasMessageContaining(".again"));
    }

    @Test
    void ax_enabled_false_turns_the_starter_off() {
        withDatabase
                .withUserConfiguration(JobsConfig.class)
                .withPropertyValues("ax.enabled=false")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx).doesNotHaveBean(AxWorkerLifecycle.class);
                    assertThat(ctx).doesNotHaveBean(IdempotencyStore.class);
                });
    }
}
