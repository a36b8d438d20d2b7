package dev.ax.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.sdk.AxClient;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The example service, started as {@code java -jar} would, against a real AX server (no in-process
 * executor there, so only the service serves group "orders"): a cron task fires every second and each
 * run inserts one order through {@code runOnce}.
 */
class OrdersApplicationTest {
    @TempDir
    Path dir;

    @Test
    void a_cron_task_runs_the_services_handler_which_inserts_one_order_per_run() {
        try (AxServer ax = AxServer.start(
                new ServerConfig(0, dir, TestDatabases.h2(), List.of(), "admin-token", "node-1", null, null))) {
            ax.store().tx(tx -> {
                ax.store().tokens().add(tx, "orders-service", "orders-token", "executor", "test");
                return null;
            });
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(OrdersApplication.class)
                    .run(
                            "--ax.server-url=" + ax.url(),
                            "--ax.token=orders-token",
                            "--ax.poll-wait=1s",
                            "--ax.executor-id=orders-1",
                            "--spring.main.keep-alive=false",
                            "--spring.datasource.url=jdbc:h2:mem:orders-example;DB_CLOSE_DELAY=-1")) {
                AxClient admin = new AxClient(ax.url(), "admin-token");

                admin.apply("""
                        {"taskName":"sync_orders","trigger":{"type":"cron","expression":"* * * * * *"},
                         "action":{"type":"sdk","handler":"syncOrders","group":"orders"}}""");

                await().atMost(Duration.ofSeconds(30))
                        .until(() -> successes(admin).size() >= 2);
                admin.pause("sync_orders");
                List<JsonNode> done = successes(admin);
                JsonNode first = done.getFirst();
                assertThat(first.path("executorId").asText()).isEqualTo("orders-1");
                assertThat(first.path("message").asText())
                        .isEqualTo("order synced for " + first.path("requestId").asText());
                assertThat(admin.log(first.path("id").asLong()))
                        .contains("syncing orders for", "[progress] 100% order synced");

                JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
                List<String> requestIds = jdbc.queryForList("SELECT request_id FROM orders", String.class);
                assertThat(requestIds)
                        .doesNotHaveDuplicates()
                        .containsAll(done.stream()
                                .map(run -> run.path("requestId").asText())
                                .toList());
                assertThat(jdbc.queryForList("SELECT request_id FROM ax_idempotency", String.class))
                        .containsExactlyInAnyOrderElementsOf(requestIds);
                assertThat(admin.task("sync_orders").path("paused").asBoolean()).isTrue();
            }
        }
    }

    private static List<JsonNode> successes(AxClient admin) {
        List<JsonNode> runs = new ArrayList<>();
        admin.instances("sync_orders", "SUCCESS").path("items").forEach(runs::add);
        return runs;
    }
}
