package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.api.ApiClient.Response;
import dev.ax.store.TestDatabases;
import org.junit.jupiter.api.Test;

class HealthApiTest {
    @Test
    void answers_503_unhealthy_when_the_database_is_gone() {
        try (TestNode node = new TestNode(TestDatabases.h2())) {
            ApiClient anonymous = node.client(null);
            assertThat(anonymous.get("/healthz").status()).isEqualTo(200);

            node.store.close();

            Response r = anonymous.get("/healthz");
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.json().get("status").asText()).isEqualTo("unhealthy");
            assertThat(r.json().get("error").asText()).contains("database");
            assertThat(node.client(TestNode.ADMIN).get("/api/tasks").status()).isEqualTo(503);
        }
    }
}
