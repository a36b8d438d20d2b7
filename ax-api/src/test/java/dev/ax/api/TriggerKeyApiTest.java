package dev.ax.api;

import static dev.ax.api.ApiContractTest.eventTask;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.DbConfig;
import dev.ax.store.Tx;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Retrying a trigger safely: {@code Idempotency-Key} (or {@code X-AX-Request-ID}) on both trigger routes, over real
 * HTTP; run on H2 and on PostgreSQL by the subclasses. Two nodes racing for one key: {@code PostgresTriggerKeyClusterTest}.
 */
abstract class TriggerKeyApiTest {
    static final String EVENT = "/api/trigger";
    static final String IMPORT = "{\"taskName\":\"import\",\"params\":{\"file\":\"a.csv\"}}";

    TestNode node;
    ApiClient admin;
    ApiClient operator;

    abstract DbConfig db();

    @BeforeEach
    void start() {
        node = new TestNode(db());
        admin = node.client(TestNode.ADMIN);
        operator = node.client(TestNode.OPERATOR);
        assertThat(admin.post("/api/tasks", eventTask("import", "echo {{params.file}}"))
                        .status())
                .isEqualTo(201);
        assertThat(admin.post("/api/tasks", eventTask("export", "echo {{params.file}}"))
                        .status())
                .isEqualTo(201);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    static Response trigger(ApiClient client, String path, String body, String... headers) {
        Map<String, String> h = new LinkedHashMap<>();
        for (int i = 0; i < headers.length; i += 2) {
            h.put(headers[i], headers[i + 1]);
        }
        return client.post(path, body, h);
    }

    int runs(String task) {
        return admin.get("/api/instances?task=" + task).json().get("items").size();
    }

    @Test
    void the_same_key_twice_makes_one_run_and_answers_the_second_with_it_as_a_duplicate() {
        Response first = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "import-a-1");
        Response second = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "import-a-1");

        assertThat(first.status()).as(first.toString()).isEqualTo(202);
        assertThat(first.json().get("duplicate").asBoolean()).isFalse();
        assertThat(second.status()).as(second.toString()).isEqualTo(200);
        JsonNode again = second.json();
        assertThat(again.get("instanceId").asLong())
                .isEqualTo(first.json().get("instanceId").asLong());
        assertThat(again.get("taskName").asText()).isEqualTo("import");
        assertThat(again.get("duplicate").asBoolean()).isTrue();
        assertThat(runs("import")).isEqualTo(1);
    }

    @Test
    void the_manual_route_dedupes_the_same_way_and_shares_keys_with_the_event_route() {
        Response first = trigger(
                operator, "/api/tasks/import/trigger", "{\"params\":{\"file\":\"a.csv\"}}", "Idempotency-Key", "k");
        Response second = trigger(
                operator, "/api/tasks/import/trigger", "{\"params\":{\"file\":\"a.csv\"}}", "Idempotency-Key", "k");
        Response viaEvent = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "k");

        assertThat(first.status()).as(first.toString()).isEqualTo(202);
        long id = first.json().get("instanceId").asLong();
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().get("instanceId").asLong()).isEqualTo(id);
        assertThat(viaEvent.status())
                .as("the same task, params and force: the same request")
                .isEqualTo(200);
        assertThat(viaEvent.json().get("instanceId").asLong()).isEqualTo(id);
        assertThat(runs("import")).isEqualTo(1);
    }

    @Test
    void x_ax_request_id_is_a_synonym_and_both_must_agree() {
        long id = trigger(operator, EVENT, IMPORT, "X-AX-Request-ID", "req-1")
                .json()
                .get("instanceId")
                .asLong();

        Response byKey = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "req-1");
        Response both = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "req-1", "X-AX-Request-ID", "req-1");
        Response differ = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "req-2", "X-AX-Request-ID", "req-3");

        assertThat(byKey.status()).isEqualTo(200);
        assertThat(byKey.json().get("instanceId").asLong()).isEqualTo(id);
        assertThat(both.status()).isEqualTo(200);
        ApiContractTest.assertField(differ, "X-AX-Request-ID");
        assertThat(differ.json().get("error").get("fields").get(0).get("reason").asText())
                .contains("differs from Idempotency-Key");
        assertThat(runs("import")).isEqualTo(1);
    }

    @Test
    void the_same_key_for_a_different_request_is_422_and_creates_nothing() {
        long id = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "k")
                .json()
                .get("instanceId")
                .asLong();

        Response otherParams = trigger(operator, EVENT, IMPORT.replace("a.csv", "b.csv"), "Idempotency-Key", "k");
        Response forced = trigger(operator, EVENT, IMPORT.replace("}}", "},\"force\":true}"), "Idempotency-Key", "k");

        for (Response r : new Response[] {otherParams, forced}) {
            assertThat(r.status()).as(r.toString()).isEqualTo(422);
            JsonNode error = r.json().get("error");
            assertThat(error.get("status").asInt()).isEqualTo(422);
            assertThat(error.get("message").asText())
                    .contains("Idempotency-Key was used")
                    .contains("for a different request")
                    .contains("run " + id);
        }
        assertThat(runs("import")).isEqualTo(1);
    }

    @Test
    void the_same_key_on_two_tasks_makes_a_run_of_each() {
        Response a = trigger(operator, EVENT, IMPORT, "Idempotency-Key", "k");
        Response b = trigger(operator, EVENT, IMPORT.replace("import", "export"), "Idempotency-Key", "k");

        assertThat(a.status()).isEqualTo(202);
        assertThat(b.status()).isEqualTo(202);
        assertThat(a.json().get("instanceId").asLong())
                .isNotEqualTo(b.json().get("instanceId").asLong());
        assertThat(runs("import")).isEqualTo(1);
        assertThat(runs("export")).isEqualTo(1);
    }

    @Test
    void a_trigger_without_a_key_makes_a_run_each_time_as_before() {
        Response first = operator.post(EVENT, IMPORT);
        Response second = operator.post(EVENT, IMPORT);

        assertThat(first.status()).isEqualTo(202);
        assertThat(second.status()).isEqualTo(202);
        assertThat(second.json().get("duplicate").asBoolean()).isFalse();
        assertThat(runs("import")).isEqualTo(2);
    }

    static Stream<Arguments> badKeys() {
        return Stream.of(
                Arguments.of("empty", "Idempotency-Key", "", "must not be empty"),
                Arguments.of("only spaces (HTTP trims them)", "Idempotency-Key", "   ", "must not be empty"),
                Arguments.of("201 characters", "Idempotency-Key", "k".repeat(201), "at most 200 characters, was 201"),
                Arguments.of("a tab", "Idempotency-Key", "a\tb", "character 2 is U+0009"),
                Arguments.of(
                        "a bad synonym", "X-AX-Request-ID", "k".repeat(300), "(it is the synonym of Idempotency-Key)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badKeys")
    void refuses_a_key_that_is_not_1_to_200_printable_ascii_characters_and_writes_nothing(
            String what, String header, String key, String reason) {
        for (String path : new String[] {EVENT, "/api/tasks/import/trigger"}) {
            Response r = trigger(operator, path, IMPORT, header, key);

            ApiContractTest.assertField(r, header);
            assertThat(r.json().get("error").get("fields").get(0).get("reason").asText())
                    .as(r.toString())
                    .contains(reason);
        }
        assertThat(runs("import")).isZero();
    }

    /** The JDK's HTTP client will not send such a header; a raw socket does, as any other client may. */
    @Test
    void refuses_a_key_with_bytes_outside_ascii_as_a_client_may_send_them() throws IOException {
        byte[] body = IMPORT.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(
                ("POST /api/trigger HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TestNode.OPERATOR
                                + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length
                                + "\r\nConnection: close"
                                + "\r\nIdempotency-Key: caf")
                        .getBytes(StandardCharsets.US_ASCII));
        request.writeBytes("\u00e9".getBytes(StandardCharsets.UTF_8));
        request.writeBytes("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        request.writeBytes(body);

        String answer;
        try (Socket socket = new Socket("127.0.0.1", node.api.port())) {
            socket.getOutputStream().write(request.toByteArray());
            answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }

        assertThat(answer).startsWith("HTTP/1.1 400 ");
        JsonNode error = new Response(400, answer.substring(answer.indexOf("\r\n\r\n") + 4), "")
                .json()
                .get("error");
        assertThat(error.get("fields").get(0).get("field").asText()).isEqualTo("Idempotency-Key");
        assertThat(error.get("fields").get(0).get("reason").asText())
                .contains("printable ASCII")
                .contains("character 4 is U+00C3");
        assertThat(runs("import")).isZero();
    }

    @Test
    void a_key_past_its_window_makes_a_new_run() {
        Duration window = Duration.ofSeconds(1);
        try (TestNode shortWindow =
                new TestNode(db(), "short-window", SchedulerConfig.DEFAULT.withIdempotencyWindow(window))) {
            ApiClient client = shortWindow.client(TestNode.OPERATOR);
            shortWindow.client(TestNode.ADMIN).post("/api/tasks", eventTask("import", "echo {{params.file}}"));
            Response first = trigger(client, EVENT, IMPORT, "Idempotency-Key", "k");
            assertThat(first.status()).as(first.toString()).isEqualTo(202);
            long firstId = first.json().get("instanceId").asLong();
            Instant created = shortWindow
                    .store
                    .tx(tx -> shortWindow.store.runs().find(tx, firstId))
                    .orElseThrow()
                    .createdAt();
            // The window is decided by the database's clock: wait for it there.
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> shortWindow.store.tx(Tx::now).isAfter(created.plus(window)));

            Response later = trigger(client, EVENT, IMPORT, "Idempotency-Key", "k");
            Response again = trigger(client, EVENT, IMPORT, "Idempotency-Key", "k");

            assertThat(later.status()).as(later.toString()).isEqualTo(202);
            long secondId = later.json().get("instanceId").asLong();
            assertThat(secondId).isNotEqualTo(firstId);
            assertThat(again.status()).as("the new run holds the key now").isEqualTo(200);
            assertThat(again.json().get("instanceId").asLong()).isEqualTo(secondId);
        }
    }
}
