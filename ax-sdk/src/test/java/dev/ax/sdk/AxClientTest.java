package dev.ax.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.store.AnswerLosingProxy;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
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
            assertThat(ax.client
                            .task("nightly")
                            .path("definition")
                            .path("action")
                            .path("handler")
                            .asText())
                    .isEqualTo("h2");
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
            assertThat(ax.client.instances("nightly", null).path("items").findValuesAsText("id"))
                    .containsExactly(Long.toString(id));
            assertThat(ax.client.events(id).path("items").findValuesAsText("type"))
                    .startsWith("CREATED");
        }
    }

    @Test
    void a_refused_call_says_the_status_and_the_servers_reason() {
        try (TestAx ax = TestAx.start(dir)) {
            assertThatThrownBy(() -> ax.client.apply(
                            "{\"taskName\":\"bad\",\"trigger\":{\"type\":\"cron\",\"expression\":\"nope\"},"
                                    + "\"action\":{\"type\":\"shell\",\"command\":\"true\"}}"))
                    .isInstanceOfSatisfying(
                            AxClientException.class, e -> assertThat(e.status()).isEqualTo(400))
                    .hasMessageContaining("trigger.expression");
            assertThatThrownBy(() -> ax.client.instance(999))
                    .isInstanceOfSatisfying(
                            AxClientException.class, e -> assertThat(e.status()).isEqualTo(404))
                    .hasMessageContaining("no run 999");
            assertThatThrownBy(() -> new AxClient(ax.server.url(), "wrong").task("x"))
                    .isInstanceOfSatisfying(
                            AxClientException.class, e -> assertThat(e.status()).isEqualTo(401));
            assertThatThrownBy(() -> ax.client.apply("{not json"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not valid JSON");
        }
    }

    @Test
    void a_trigger_whose_answer_is_lost_is_sent_again_with_the_same_key_and_makes_one_run() {
        try (TestAx ax = TestAx.start(dir);
                AnswerLosingProxy proxy = new AnswerLosingProxy(ax.server.url().getPort(), 1)) {
            ax.client.apply(TASK);

            long id = new AxClient(proxy.uri(), TestAx.ADMIN_TOKEN).trigger("nightly", Map.of("date", "2024-05-01"));

            List<String> keys = proxy.headerOfEachRequest("Idempotency-Key");
            assertThat(keys).as("the lost attempt and its retry").hasSize(2);
            assertThat(keys.getFirst()).matches("[0-9a-f-]{36}");
            assertThat(keys.get(1)).isEqualTo(keys.getFirst());
            assertThat(ax.client.instances("nightly", null).path("items").findValuesAsText("id"))
                    .containsExactly(Long.toString(id));
        }
    }

    @Test
    void each_trigger_call_sends_a_key_of_its_own() {
        try (TestAx ax = TestAx.start(dir);
                AnswerLosingProxy proxy = new AnswerLosingProxy(ax.server.url().getPort(), 0)) {
            ax.client.apply(TASK);
            AxClient client = new AxClient(proxy.uri(), TestAx.ADMIN_TOKEN);

            long first = client.trigger("nightly", Map.of());
            long second = client.trigger("nightly", Map.of());

            assertThat(second).isNotEqualTo(first);
            assertThat(proxy.headerOfEachRequest("Idempotency-Key"))
                    .hasSize(2)
                    .doesNotHaveDuplicates()
                    .doesNotContainNull();
        }
    }

    @Test
    void a_trigger_with_the_callers_key_returns_the_first_run_and_refuses_another_request_under_it() {
        try (TestAx ax = TestAx.start(dir)) {
            ax.client.apply(TASK);

            long first = ax.client.trigger("nightly", Map.of("date", "2024-05-01"), "order-7");
            long again = ax.client.trigger("nightly", Map.of("date", "2024-05-01"), "order-7");

            assertThat(again).isEqualTo(first);
            assertThat(ax.client.instances("nightly", null).path("items")).hasSize(1);
            assertThatThrownBy(() -> ax.client.trigger("nightly", Map.of("date", "2024-05-02"), "order-7"))
                    .isInstanceOfSatisfying(
                            AxClientException.class, e -> assertThat(e.status()).isEqualTo(422))
                    .hasMessageContaining("for a different request");
            assertThatThrownBy(() -> ax.client.trigger("nightly", Map.of(), "line\nbreak"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("printable ASCII");
        }
    }

    @Test
    void a_trigger_that_stays_unanswered_is_tried_again_then_fails_saying_its_key() {
        AxClient client = new AxClient(URI.create("http://127.0.0.1:1"), "t");

        assertThatThrownBy(() -> client.trigger("x", Map.of(), "k-1"))
                .isInstanceOfSatisfying(
                        AxClientException.class, e -> assertThat(e.status()).isZero())
                .hasMessageStartingWith("no answer after 4 attempts with Idempotency-Key k-1")
                .hasMessageContaining("the same key is safe to send again")
                .hasMessageContaining("cannot reach the AX server at http://127.0.0.1:1");
    }

    @Test
    void an_unreachable_server_is_status_zero() {
        AxClient client = new AxClient(URI.create("http://127.0.0.1:1"), "t");
        assertThatThrownBy(() -> client.task("x"))
                .isInstanceOfSatisfying(
                        AxClientException.class, e -> assertThat(e.status()).isZero())
                .hasMessageStartingWith("cannot reach the AX server at http://127.0.0.1:1");
    }
}
