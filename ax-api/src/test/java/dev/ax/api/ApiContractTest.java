package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.ApiClient.Response;
import dev.ax.store.ClockBoundaries;
import dev.ax.store.DbConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The task API over real HTTP; run on H2 and on PostgreSQL by the subclasses. */
abstract class ApiContractTest {
    static final String SEED = """
            {"taskName":"daily_report","trigger":{"type":"cron","expression":"0 2 * * *","timezone":"Asia/Shanghai"},\
            "action":{"type":"shell","command":"python /data/scripts/gen_report.py --date {{yesterday}}"},\
            "policy":{"maxRetries":2,"retryIntervalSeconds":300,"timeoutSeconds":1200,"notifyOnFailure":["dingtalk","email"]}}""";

    TestNode node;
    ApiClient admin;

    abstract DbConfig db();

    @BeforeEach
    void start() {
        node = new TestNode(db());
        admin = node.client(TestNode.ADMIN);
    }

    @AfterEach
    void stop() {
        node.close();
    }

    static String eventTask(String name, String command) {
        return """
                {"taskName":"%s","trigger":{"type":"event"},"action":{"type":"shell","command":"%s"}}""".formatted(name, command);
    }

    @Test
    void creates_the_seed_task_with_its_next_slot_and_channel_warnings() {
        // The expected slot is worked out before the task is created: start well before 18:00Z, or the task's next slot
        // may be a day later.
        Instant before = ClockBoundaries.awaitClearOfTimeOfDay(
                node.store, ZoneOffset.UTC, LocalTime.of(18, 0), Duration.ofSeconds(10));
        Response r = admin.post("/api/tasks", SEED);

        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        JsonNode t = r.json();
        assertThat(t.get("taskName").asText()).isEqualTo("daily_report");
        assertThat(t.get("version").asInt()).isEqualTo(1);
        assertThat(t.get("paused").asBoolean()).isFalse();
        assertThat(t.get("createdBy").asText()).isEqualTo("admin");
        // 02:00 Asia/Shanghai is 18:00Z the day before
        ZonedDateTime next1800 =
                before.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.DAYS).withHour(18);
        if (!next1800.toInstant().isAfter(before)) {
            next1800 = next1800.plusDays(1);
        }
        assertThat(Instant.parse(t.get("nextFireAt").asText())).isEqualTo(next1800.toInstant());
        assertThat(t.get("definition").get("trigger").get("expression").asText())
                .isEqualTo("0 2 * * *");
        assertThat(t.get("warnings").toString()).contains("dingtalk").contains("email");

        Response got = admin.get("/api/tasks/daily_report");
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.json().has("warnings")).isFalse();
        assertThat(admin.post("/api/tasks", SEED).status()).isEqualTo(409);
    }

    static Stream<Arguments> invalidTasks() {
        return Stream.of(
                Arguments.of("bad cron", SEED.replace("0 2 * * *", "61 2 * * *"), "trigger.expression"),
                Arguments.of("unknown time zone", SEED.replace("Asia/Shanghai", "Mars/Olympus"), "trigger.timezone"),
                Arguments.of("unknown action type", SEED.replace("\"shell\"", "\"ftp\""), "action.type"),
                Arguments.of("negative timeout", SEED.replace("1200", "-5"), "policy.timeoutSeconds"),
                Arguments.of("unknown template variable", SEED.replace("{{yesterday}}", "{{nope}}"), "action.command"),
                Arguments.of("malformed JSON", SEED.substring(0, 40), ""),
                Arguments.of("not an object", "[1,2]", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidTasks")
    void refuses_invalid_tasks_with_field_and_reason_and_writes_nothing(String what, String body, String field) {
        Response r = admin.post("/api/tasks", body);

        assertThat(r.status()).as(r.toString()).isEqualTo(400);
        JsonNode error = r.json().get("error");
        assertThat(error.get("status").asInt()).isEqualTo(400);
        assertThat(error.get("fields")).isNotEmpty();
        assertThat(error.get("fields").get(0).get("field").asText()).isEqualTo(field);
        assertThat(error.get("fields").get(0).get("reason").asText()).isNotBlank();
        if (what.equals("malformed JSON")) {
            assertThat(error.get("fields").get(0).get("reason").asText()).startsWith("malformed JSON: ");
        }
        assertThat(admin.get("/api/tasks").json().get("items")).isEmpty();
        assertThat(admin.get("/api/tasks/daily_report/versions").status()).isEqualTo(404);
    }

    @Test
    void versions_show_each_change_with_its_diff_and_actor() {
        admin.post("/api/tasks", SEED);
        Response put = admin.put("/api/tasks/daily_report", SEED.replace("gen_report.py", "gen_report_v2.py"));
        assertThat(put.status()).as(put.toString()).isEqualTo(200);
        assertThat(put.json().get("version").asInt()).isEqualTo(2);
        Response paused = node.client(TestNode.OPERATOR).post("/api/tasks/daily_report/pause", "");
        assertThat(paused.status()).as(paused.toString()).isEqualTo(200);
        assertThat(paused.json().get("paused").asBoolean()).isTrue();

        JsonNode items = admin.get("/api/tasks/daily_report/versions").json().get("items");

        assertThat(items).hasSize(3);
        assertThat(items.get(0).get("change").asText()).isEqualTo("PAUSE");
        assertThat(items.get(0).get("actor").asText()).isEqualTo("olga");
        assertThat(items.get(0).get("diff").get(0).get("path").asText()).isEqualTo("enabled");
        assertThat(items.get(1).get("change").asText()).isEqualTo("UPDATE");
        assertThat(items.get(1).get("actor").asText()).isEqualTo("admin");
        JsonNode diff = items.get(1).get("diff");
        assertThat(diff).hasSize(1);
        assertThat(diff.get(0).get("path").asText()).isEqualTo("action.command");
        assertThat(diff.get(0).get("from").asText()).contains("gen_report.py");
        assertThat(diff.get(0).get("to").asText()).contains("gen_report_v2.py");
        assertThat(items.get(2).get("change").asText()).isEqualTo("CREATE");
        assertThat(items.get(2).get("version").asInt()).isEqualTo(1);
        assertThat(items.get(2).get("definition").get("taskName").asText()).isEqualTo("daily_report");

        JsonNode events = admin.get("/api/tasks/daily_report/events").json().get("items");
        assertThat(events.get(0).get("type").asText()).isEqualTo("TASK_PAUSED");
        assertThat(events.get(0).get("actor").asText()).isEqualTo("olga");
    }

    @Test
    void needs_a_token_and_the_right_role() {
        Response none = node.client(null).get("/api/tasks");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.json().get("error").get("status").asInt()).isEqualTo(401);
        assertThat(node.client("no-such-token").get("/api/tasks").status()).isEqualTo(401);

        ApiClient viewer = node.client(TestNode.VIEWER);
        Response forbidden = viewer.post("/api/tasks", SEED);
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.json().get("error").get("message").asText()).contains("viewer");
        assertThat(viewer.get("/api/tasks").status()).isEqualTo(200);
        assertThat(node.client(TestNode.OPERATOR)
                        .delete("/api/tasks/daily_report")
                        .status())
                .isEqualTo(403);
        assertThat(node.client(TestNode.EXECUTOR).get("/api/tasks").status()).isEqualTo(403);
        assertThat(viewer.post("/api/executor/heartbeat", "{}").status()).isEqualTo(403);
        assertThat(admin.get("/api/tasks").status()).isEqualTo(200);
        assertThat(admin.get("/api/tasks").json().get("items")).isEmpty();
    }

    @Test
    void healthz_needs_no_token() {
        Response r = node.client(null).get("/healthz");

        assertThat(r.status()).isEqualTo(200);
        JsonNode h = r.json();
        assertThat(h.get("status").asText()).isEqualTo("ok");
        assertThat(h.get("nodeId").asText()).isEqualTo("api-test");
        assertThat(h.get("loopErrors").asLong()).isZero();
        assertThat(Instant.parse(h.get("dbTime").asText())).isNotNull();
        assertThat(h.has("clockOffsetMillis")).isTrue();
    }

    @Test
    void previews_cron_slots() {
        Response r = admin.get(
                "/api/cron/next?expression=0+2+*+*+*&timezone=Asia/Shanghai&after=2026-11-29T10:00:00Z&count=2");

        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        assertThat(r.json().get("next").get(0).asText()).isEqualTo("2026-11-29T18:00:00Z");
        assertThat(r.json().get("next").get(1).asText()).isEqualTo("2026-11-30T18:00:00Z");
        assertThat(admin.get("/api/cron/next?expression=0+2+*+*+*").json().get("next"))
                .hasSize(5);
        assertField(admin.get("/api/cron/next?expression=61+2+*+*+*"), "expression");
        assertField(admin.get("/api/cron/next"), "expression");
        assertField(admin.get("/api/cron/next?expression=0+2+*+*+*&timezone=Nowhere/Land"), "timezone");
        assertField(admin.get("/api/cron/next?expression=0+2+*+*+*&count=101"), "count");
        assertField(admin.get("/api/cron/next?expression=0+2+*+*+*&after=tomorrow"), "after");
    }

    @Test
    void refuses_bad_query_parameters_naming_the_parameter() {
        assertField(admin.get("/api/tasks?limit=abc"), "limit");
        assertField(admin.get("/api/tasks?limit=501"), "limit");
        assertField(admin.get("/api/tasks?cursor=%25%25"), "cursor");
        assertField(admin.get("/api/instances?state=NOPE"), "state");
        assertField(admin.get("/api/instances?from=yesterday"), "from");
        assertField(admin.get("/api/instances/abc"), "id");
        assertField(admin.get("/api/instances/1/events?after=-1"), "after");
    }

    @Test
    void pages_through_tasks_by_name() {
        for (String n : List.of("c", "a", "b")) {
            assertThat(admin.post("/api/tasks", eventTask(n, "true")).status()).isEqualTo(201);
        }
        List<String> names = new ArrayList<>();
        JsonNode page = admin.get("/api/tasks?limit=2").json();
        page.get("items").forEach(t -> names.add(t.get("taskName").asText()));
        assertThat(page.get("next").isNull()).isFalse();
        JsonNode page2 = admin.get(
                        "/api/tasks?limit=2&cursor=" + page.get("next").asText())
                .json();
        page2.get("items").forEach(t -> names.add(t.get("taskName").asText()));

        assertThat(names).containsExactly("a", "b", "c");
        assertThat(page2.get("next").isNull()).isTrue();
        assertThat(admin.get("/api/tasks?search=b").json().get("items")).hasSize(1);
    }

    @Test
    void triggers_a_run_and_explains_why_it_waits() {
        admin.post("/api/tasks", eventTask("import", "echo {{params.file}}"));
        ApiClient operator = node.client(TestNode.OPERATOR);

        assertField(operator.post("/api/trigger", "{\"params\":{}}"), "taskName");
        assertThat(operator.post("/api/trigger", "{\"taskName\":\"nope\"}").status())
                .isEqualTo(404);
        assertField(operator.post("/api/trigger", "{\"taskName\":\"import\",\"params\":[1]}"), "params");
        Response r = operator.post("/api/trigger", "{\"taskName\":\"import\",\"params\":{\"file\":\"a.csv\"}}");
        assertThat(r.status()).as(r.toString()).isEqualTo(202);
        long id = r.json().get("instanceId").asLong();
        assertThat(r.json().get("taskName").asText()).isEqualTo("import");

        JsonNode run = admin.get("/api/instances/" + id).json();
        assertThat(run.get("state").asText()).isEqualTo("READY");
        assertThat(run.get("cause").asText()).isEqualTo("event");
        assertThat(run.get("actor").asText()).isEqualTo("olga");
        assertThat(run.get("nodeId").asText()).isEqualTo("api-test");
        assertThat(run.get("params").get("file").asText()).isEqualTo("a.csv");
        assertThat(run.get("waitingReason").asText()).isEqualTo("no executor for group default is online");
        assertThat(run.get("triggerChain")).hasSize(1);
        assertThat(run.get("triggerChain").get(0).get("actor").asText()).isEqualTo("olga");

        Response manual = operator.post("/api/tasks/import/trigger", "{\"params\":{\"file\":\"b.csv\"}}");
        assertThat(manual.status()).as(manual.toString()).isEqualTo(202);
        // maxConcurrency defaults to 1: the second run waits behind the first.
        JsonNode list = admin.get("/api/instances?task=import").json().get("items");
        assertThat(list).hasSize(2);
        assertThat(list.get(0).get("cause").asText()).isEqualTo("manual");
        assertThat(list.get(0).get("state").asText()).isEqualTo("BLOCKED");
        assertThat(list.get(0).get("waitingReason").asText())
                .isEqualTo("waiting for a concurrency slot (maxConcurrency 1)");
        assertThat(admin.get("/api/instances?task=import&state=ready").json().get("items"))
                .hasSize(1);
        assertThat(admin.get("/api/instances?task=other").json().get("items")).isEmpty();
        assertThat(admin.get("/api/instances/999999").status()).isEqualTo(404);
    }

    @Test
    void delete_cancels_waiting_runs_and_keeps_the_history() {
        admin.post("/api/tasks", eventTask("gone", "true"));
        long id = node.client(TestNode.OPERATOR)
                .post("/api/trigger", "{\"taskName\":\"gone\"}")
                .json()
                .get("instanceId")
                .asLong();

        assertThat(admin.delete("/api/tasks/gone").status()).isEqualTo(204);

        Response gone = admin.get("/api/tasks/gone");
        assertThat(gone.status()).isEqualTo(404);
        assertThat(gone.json().get("error").get("message").asText()).isEqualTo("no task named gone");
        assertThat(admin.delete("/api/tasks/gone").status()).isEqualTo(404);
        assertThat(admin.get("/api/instances/" + id).json().get("state").asText())
                .isEqualTo("CANCELED");
        assertThat(admin.get("/api/tasks/gone/versions")
                        .json()
                        .get("items")
                        .get(0)
                        .get("change")
                        .asText())
                .isEqualTo("DELETE");
    }

    @Test
    void refuses_a_rename_through_put() {
        admin.post("/api/tasks", SEED);
        assertField(admin.put("/api/tasks/daily_report", SEED.replace("daily_report", "other")), "taskName");
        assertThat(admin.put("/api/tasks/nope", SEED.replace("daily_report", "nope"))
                        .status())
                .isEqualTo(404);
    }

    @Test
    void answers_unknown_routes_with_the_error_shape() {
        Response r = admin.get("/api/nothing-here");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json().get("error").get("message").asText()).contains("GET /api/nothing-here");
        assertThat(admin.delete("/api/trigger")
                        .json()
                        .get("error")
                        .get("status")
                        .asInt())
                .isEqualTo(404);
        assertThat(r.json().get("error").get("status").asInt()).isEqualTo(404);
    }

    static void assertField(Response r, String field) {
        assertThat(r.status()).as(r.toString()).isEqualTo(400);
        assertThat(r.json().get("error").get("fields").get(0).get("field").asText())
                .as(r.toString())
                .isEqualTo(field);
    }
}
