package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The REST client against a real server. */
class AxClientTest {
    @TempDir
    Path dir;

    private static final String TASK = """
            {"taskName":"nightly","trigger":{"type":"event"},"action":{"type":"sdk","handler":"h","group":"g"}}""";

    @Test
    void apply_creates_a_task_then_updates_it_as_a_new_version() {
        try (TestAx ax = TestAx.start(dir)) {
            JsonNode created = ax.client.apply(TASK);
            JsonNode updated = ax.client.apply(TASK.replace("\"h\"", "\"h2\""));

            assertThat(created.path("version").asInt()).isEqualTo(1);
            assertThat(updated.path("version").asInt()).isEqualTo(2);
            assertThat(ax.client.task("nightly").path("definition").path("action").path("handler").asText()).isEqualTo("h2");
            assertThat(ax.client.pause("nightly").path("paused").asBoolean()).isTrue();
            assertThat(ax.client.resume("nightly").path("paused").asBoolean()).isFalse();
        }
    }

    @Test
    void trigger_returns_the_new_run_with_its_parameters() {
        try (TestAx ax = TestAx.start(dir)) {
            ax.client.apply(TASK);

            long id = ax.client.trigger("nightly", Map.of("date", "2024-05-01"));

            JsonNode run = ax.client.instance(id);
            assertThat(run.path("taskName").asText()).isEqualTo("nightly");
            assertThat(run.path("params").path("date").asText()).isEqualTo("2024-05-01");
            assertThat(run.path("requestId").asText()).isEqualTo("ax-" + id);
            assertThat(ax.client.instances("nightly", null).path("items").findValuesAsText("id")).containsExactly(Long.toString(id));
            assertThat(ax.client.events(id).path("items").findValuesAsText("type")).startsWith("CREATED");
        }
    }

    @Test
    void a_refused_call_says_the_status_and_the_servers_reason() {
        try (TestAx ax = TestAx.start(dir)) {
            assertThatThrownBy(() -> ax.client.apply("{\"taskName\":\"bad\",\"trigger\":{\"type\":\"cron\",\"expression\":\"nope\"},"
                    + "\"action\":{\"type\":\"shell\",\"command\":\"true\"}}"))
                    .isInstanceOfSatisfying(AxClientException.class, e -> assertThat(e.status()).isEqualTo(400))
                    .hasMessageContaining("trigger.expression");
            assertThatThrownBy(() -> ax.client.instance(999))
                    .isInstanceOfSatisfying(AxClientException.class, e -> assertThat(e.status()).isEqualTo(404))
                    .hasMessageContaining("no instance 999");
            assertThatThrownBy(() -> new AxClient(ax.server.url(), "wrong").task("x"))
                    .isInstanceOfSatisfying(AxClientException.class, e -> assertThat(e.status()).isEqualTo(401));
            assertThatThrownBy(() -> ax.client.apply("{not json"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not valid JSON");
        }
    }

    @Test
    void an_unreachable_server_is_status_zero() {
        AxClient client = new AxClient(URI.create("http://127.0.0.1:1"), "t");
        assertThatThrownBy(() -> client.task("x"))
                .isInstanceOfSatisfying(AxClientException.class, e -> assertThat(e.status()).isZero())
                .hasMessageStartingWith("cannot reach the AX server at http://127.0.0.1:1");
    }
}
