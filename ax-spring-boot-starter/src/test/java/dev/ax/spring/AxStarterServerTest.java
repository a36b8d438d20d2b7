package dev.ax.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.sdk.AxClient;
import dev.ax.sdk.AxContext;
import dev.ax.sdk.IdempotencyStore;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.TestDatabases;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/** The starter in an application context, against a real AX server over HTTP. */
class AxStarterServerTest {
    @TempDir
    Path dir;

    AxServer server;
    AxClient admin;

    /** A handler that writes through Spring's JdbcTemplate inside runOnce: the same transaction as the record. */
    static class ShopJobs {
        private final JdbcTemplate jdbc;

        ShopJobs(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @AxJob("placeOrder")
        String place(AxContext ctx) throws Exception {
            return ctx.runOnce(tx -> {
                jdbc.update("INSERT INTO orders (request_id, item) VALUES (?, ?)", ctx.requestId(), ctx.param("item"));
                return "placed " + ctx.param("item");
            });
        }
    }

    @BeforeEach
    void startServer() {
        server = AxServer.start(
                new ServerConfig(0, dir, TestDatabases.h2(), List.of(), "admin-token", "node-1", null, null));
        server.store().tx(tx -> {
            server.store().tokens().add(tx, "shop", "shop-token", "executor", "test");
            return null;
        });
        admin = new AxClient(server.url(), "admin-token");
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    private ApplicationContextRunner app(String database) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        JdbcTemplateAutoConfiguration.class,
                        AxAutoConfiguration.class))
                .withBean(ShopJobs.class)
                .withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1",
                        "ax.server-url=" + server.url(),
                        "ax.token=shop-token",
                        "ax.group=shop",
                        "ax.executor-id=shop-app",
                        "ax.poll-wait=1s");
    }

    @Test
    void a_triggered_run_reaches_the_annotated_method_which_writes_once_in_the_apps_transaction() {
        app("starter-run").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("CREATE TABLE orders (request_id VARCHAR(200), item VARCHAR(50))");
            ctx.getBean(IdempotencyStore.class).createTable();
            admin.apply("""
                    {"taskName":"place_order","trigger":{"type":"event"},
                     "action":{"type":"sdk","handler":"placeOrder","group":"shop"}}""");

            long id = admin.trigger("place_order", Map.of("item", "teapot"));

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> admin.instance(id).path("state").asText().equals("SUCCESS"));
            assertThat(admin.instance(id).path("message").asText()).isEqualTo("placed teapot");
            assertThat(admin.instance(id).path("executorId").asText()).isEqualTo("shop-app");
            assertThat(jdbc.queryForList("SELECT request_id FROM orders", String.class))
                    .containsExactly("ax-" + id);
            assertThat(jdbc.queryForObject(
                            "SELECT result FROM ax_idempotency WHERE request_id = ?", String.class, "ax-" + id))
                    .isEqualTo("placed teapot");
            assertThat(ctx.getBean(AxWorkerLifecycle.class).worker().errorCount())
                    .isZero();
        });
    }

    @Test
    void a_jdbc_template_write_inside_run_once_rolls_back_with_the_record() {
        app("starter-rollback").run(ctx -> {
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("CREATE TABLE orders (request_id VARCHAR(200), item VARCHAR(50))");
            IdempotencyStore store = ctx.getBean(IdempotencyStore.class);
            store.createTable();

            assertThatThrownBy(() -> store.runOnce("ax-77", tx -> {
                        jdbc.update("INSERT INTO orders (request_id, item) VALUES ('ax-77', 'kettle')");
                        throw new IOException("payment service down");
                    }))
                    .isInstanceOf(IOException.class)
                    .hasMessage("payment service down");

            assertThat(jdbc.queryForObject("SELECT count(*) FROM orders", Integer.class))
                    .isZero();
            assertThat(store.find("ax-77")).isEmpty();
        });
    }
}
