package dev.ax.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.api.ApiClient.Response;
import dev.ax.store.TestDatabases;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Random task definitions, trigger bodies, parameter values and cron expressions thrown at the real API:
 * never a 500, a refusal writes nothing, and what a parameter becomes in a shell command is exactly one word
 * per place it stands (checked by running the command the executor protocol hands out in a real shell).
 */
class ApiFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<Integer> REFUSALS = Set.of(400, 404, 409, 413, 422);
    private static TestNode node;
    private static ApiClient admin;
    private static ApiClient exec;

    @BeforeContainer
    static void start() {
        node = new TestNode(TestDatabases.h2());
        admin = node.client(TestNode.ADMIN);
        exec = node.client(TestNode.EXECUTOR);
        Response created = admin.post("/api/tasks", """
                {"taskName":"words","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"printf '%s\\\\0' {{params.a}} \\"x{{params.a}}\\" 'y{{params.b}}' {{params.list}}"}}""");
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        exec.post(
                "/api/executor/register",
                Map.of(
                        "executorId",
                        "exec-1",
                        "session",
                        "s1",
                        "groups",
                        List.of("default"),
                        "host",
                        "box",
                        "pid",
                        42,
                        "version",
                        "test",
                        "held",
                        List.of()));
    }

    @AfterContainer
    static void stop() {
        node.close();
    }

    private static int count(String table) {
        return node.store.tx(tx -> tx.queryOne("SELECT COUNT(*) AS n FROM " + table, r -> r.integer("n"))
                .orElse(0));
    }

    private static void assertNoServerError(Response r) {
        assertThat(r.status()).as("answer to random input: %s", r).isLessThan(500);
        if (r.status() >= 400) {
            assertThat(r.json().get("error").get("message").asText())
                    .as("error body")
                    .isNotBlank();
        }
    }

    // ---- task definitions ------------------------------------------------------------------

    @Property(tries = 250)
    void a_random_task_definition_is_saved_or_refused_and_a_refusal_writes_nothing(@ForAll("tasks") String body) {
        int tasks = count("ax_task");
        int versions = count("ax_task_version");
        int events = count("ax_event");
        Response r = admin.post("/api/tasks", body);
        assertNoServerError(r);
        Statistics.collect(r.status());
        if (r.status() == 201) {
            assertThat(admin.delete("/api/tasks/" + r.json().get("taskName").asText())
                            .status())
                    .isEqualTo(204);
        } else {
            assertThat(REFUSALS).as(r.toString()).contains(r.status());
            assertThat(count("ax_task")).isEqualTo(tasks);
            assertThat(count("ax_task_version")).isEqualTo(versions);
            assertThat(count("ax_event")).isEqualTo(events);
        }
    }

    @Provide
    Arbitrary<String> tasks() {
        Arbitrary<String> mutated = Combinators.combine(
                        Arbitraries.of(VALID), paths(), values(), Arbitraries.of(Mutation.values()))
                .as((base, path, value, how) -> write(how.apply(base, path, value)));
        Arbitrary<String> garbage = Arbitraries.strings().ofMaxLength(60);
        Arbitrary<String> randomTrees = values().map(ApiFuzzTest::write);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, mutated),
                net.jqwik.api.Tuple.of(1, garbage),
                net.jqwik.api.Tuple.of(1, randomTrees));
    }

    private static final List<String> VALID = List.of("""
            {"taskName":"f1","trigger":{"type":"cron","expression":"*/5 * * * *","timezone":"Asia/Shanghai"},
             "action":{"type":"shell","command":"echo {{date}} {{params.x}}","env":{"K":"{{params.x}}"}},
             "policy":{"maxRetries":2,"retryIntervalSeconds":10,"idempotencyKey":"{{taskName}}:{{date}}"},
             "params":{"x":{"type":"string","default":"a"}}}""", """
            {"taskName":"f2","trigger":{"type":"event"},
             "action":{"type":"http","method":"POST","url":"http://127.0.0.1:9/x/{{params.id}}","headers":{"X-A":"{{params.id}}"},
                       "body":{"id":"{{params.id}}","n":[1,2]}},
             "params":{"id":{"type":"integer","required":true,"min":1}}}""", """
            {"taskName":"f3","trigger":{"type":"interval","intervalSeconds":60},
             "action":{"type":"sdk","handler":"sync","group":"orders"},
             "policy":{"maxConcurrency":2,"overflow":"SKIP","approval":{"approvers":["alice"],"timeoutSeconds":60}}}""");

    /** Where a mutation lands: a path of keys into the definition. */
    private static Arbitrary<List<String>> paths() {
        return Arbitraries.of(
                        "taskName",
                        "trigger",
                        "trigger.type",
                        "trigger.expression",
                        "trigger.timezone",
                        "trigger.intervalSeconds",
                        "action",
                        "action.type",
                        "action.command",
                        "action.env",
                        "action.env.K",
                        "action.url",
                        "action.headers",
                        "action.body",
                        "action.method",
                        "action.group",
                        "policy",
                        "policy.maxRetries",
                        "policy.idempotencyKey",
                        "policy.approval",
                        "policy.overflow",
                        "params",
                        "params.x",
                        "params.x.type",
                        "params.x.default",
                        "params.id.min",
                        "params.id.enum",
                        "params.x.pattern",
                        "dependsOn",
                        "environment",
                        "extra")
                .map(p -> Arrays.asList(p.split("\\.")));
    }

    /** Random JSON values, with the strings an attacker or a careless user sends. */
    private static Arbitrary<Object> values() {
        Arbitrary<Object> strings = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(30),
                Arbitraries.of(
                        "{{params.x}}",
                        "{{secret.db}}",
                        "{{date",
                        "`id`",
                        "$(id)",
                        "0 2 * * *",
                        "61 * * * *",
                        "@daily",
                        "Asia/Shanghai",
                        "Mars/Base",
                        "shell",
                        "http",
                        "event",
                        "cron",
                        "ALLOW",
                        "-1",
                        "",
                        "\u0000",
                        "\r\n",
                        "'\"",
                        "..",
                        "http://x/{{params.x}}",
                        "{{params.x}}/y",
                        "a".repeat(70_000)));
        Arbitrary<Object> scalars = Arbitraries.oneOf(
                strings,
                Arbitraries.integers().map(Object.class::cast),
                Arbitraries.longs().map(Object.class::cast),
                Arbitraries.doubles().map(Object.class::cast),
                Arbitraries.of(true, false),
                Arbitraries.just(null));
        return Arbitraries.recursive(
                () -> scalars,
                inner -> Arbitraries.oneOf(
                        inner.list().ofMaxSize(3).map(Object.class::cast),
                        Arbitraries.maps(
                                        Arbitraries.of("type", "a", "x", "command", "expression", "default", "enum"),
                                        inner)
                                .ofMaxSize(3)
                                .map(Object.class::cast)),
                3);
    }

    private enum Mutation {
        REPLACE,
        REMOVE,
        ADD;

        @SuppressWarnings("unchecked")
        Map<String, Object> apply(String base, List<String> path, Object value) {
            Map<String, Object> root = read(base);
            Map<String, Object> at = root;
            for (int i = 0; i < path.size() - 1; i++) {
                if (!(at.get(path.get(i)) instanceof Map<?, ?> next)) {
                    return root; // the path does not exist in this base: send it as it is
                }
                at = (Map<String, Object>) next;
            }
            String key = path.getLast();
            switch (this) {
                case REPLACE -> at.put(key, value);
                case REMOVE -> at.remove(key);
                case ADD -> at.put(key + "_extra", value);
            }
            return root;
        }
    }

    // ---- trigger bodies and parameter values ----------------------------------------------

    @Property(tries = 150)
    void a_random_trigger_body_makes_one_run_or_none_and_its_values_stay_one_word_each(@ForAll("triggers") String body)
            throws Exception {
        int runs = count("ax_instance");
        Response r = admin.post("/api/tasks/words/trigger", body);
        assertNoServerError(r);
        Statistics.collect(r.status());
        if (r.status() != 202) {
            assertThat(count("ax_instance")).isEqualTo(runs);
            return;
        }
        assertThat(count("ax_instance")).isEqualTo(runs + 1);
        Map<String, Object> params = read(body).get("params") instanceof Map<?, ?> p ? cast(p) : Map.of();
        Response poll = exec.post(
                "/api/executor/poll",
                Map.of("executorId", "exec-1", "groups", List.of("default"), "max", 1, "waitMillis", 2000));
        JsonNode item = poll.json().get("items").get(0);
        assertThat(item.get("instanceId").asLong())
                .isEqualTo(r.json().get("instanceId").asLong());
        exec.post(
                "/api/executor/complete",
                Map.of(
                        "executorId",
                        "exec-1",
                        "run",
                        Map.of(
                                "instanceId",
                                item.get("instanceId").asLong(),
                                "attempt",
                                item.get("attempt").asInt()),
                        "success",
                        true,
                        "message",
                        "checked"));

        List<String> expected = new ArrayList<>();
        String a = text(params.get("a"));
        expected.add(a);
        expected.add("x" + a);
        expected.add("y" + text(params.get("b")));
        ((List<?>) params.get("list")).forEach(v -> expected.add(text(v)));
        assertThat(sh(item.get("command").asText()))
                .as(item.get("command").asText())
                .isEqualTo(expected);
        assertThat(item.get("env").get("AX_PARAM_A").asText()).isEqualTo(a);
    }

    @Provide
    Arbitrary<String> triggers() {
        Arbitrary<Object> word = Arbitraries.oneOf(
                Arbitraries.strings()
                        .ofMaxLength(20)
                        .filter(s -> s.indexOf('\0') < 0)
                        .map(Object.class::cast),
                Arbitraries.of("x; id", "$(id)", "`id`", "'", "\"", "a b", "", "\\", "--rm", "\n", "*")
                        .map(Object.class::cast),
                Arbitraries.integers().map(Object.class::cast),
                Arbitraries.of(true, false).map(Object.class::cast));
        Arbitrary<Map<String, Object>> good = Combinators.combine(
                        word, word, word.list().ofMaxSize(3))
                .as((a, b, list) -> {
                    Map<String, Object> p = new LinkedHashMap<>();
                    p.put("a", a);
                    p.put("b", b);
                    p.put("list", list);
                    return p;
                });
        Arbitrary<Object> broken =
                Arbitraries.oneOf(values(), Arbitraries.of("a\u0000b", List.of(List.of("x")), Map.of("k", "v")));
        return Arbitraries.oneOf(
                good.map(p -> write(Map.of("params", p))),
                Combinators.combine(good, broken).as((p, bad) -> {
                    Map<String, Object> params = new LinkedHashMap<>(p);
                    params.put("a", bad);
                    return write(Map.of("params", params));
                }),
                values().map(v -> write(Map.of("params", v))),
                Arbitraries.strings().ofMaxLength(40));
    }

    // ---- cron expressions ------------------------------------------------------------------

    @Property(tries = 300)
    void a_random_cron_expression_is_previewed_or_refused_never_a_500(@ForAll("crons") String expression) {
        assertNoServerError(
                admin.get("/api/cron/next?expression=" + URLEncoder.encode(expression, StandardCharsets.UTF_8)));
        int tasks = count("ax_task");
        Response r = admin.post(
                "/api/tasks",
                write(Map.of(
                        "taskName",
                        "cronfuzz",
                        "trigger",
                        Map.of("type", "cron", "expression", expression),
                        "action",
                        Map.of("type", "shell", "command", "true"))));
        assertNoServerError(r);
        Statistics.collect(r.status());
        if (r.status() == 201) {
            admin.delete("/api/tasks/cronfuzz");
        } else {
            assertThat(count("ax_task")).isEqualTo(tasks);
        }
    }

    @Provide
    Arbitrary<String> crons() {
        Arbitrary<String> field = Arbitraries.oneOf(
                Arbitraries.of(
                        "*",
                        "*/0",
                        "*/5",
                        "0",
                        "59",
                        "60",
                        "L",
                        "5L",
                        "1-5",
                        "5-1",
                        "1,2,3",
                        "MON-FRI",
                        "JAN",
                        "?",
                        "#",
                        "-",
                        ",",
                        "*/",
                        "1-",
                        "99999999999",
                        "W",
                        "LW",
                        "7",
                        "0-7/2",
                        "a"),
                Arbitraries.strings().withChars("0123456789*/-,LW#?").ofMaxLength(6));
        return Arbitraries.oneOf(
                field.list().ofMinSize(1).ofMaxSize(7).map(f -> String.join(" ", f)),
                Arbitraries.of("@daily", "@hourly", "@reboot", "@every 5m", "", " "),
                Arbitraries.strings().ofMaxLength(30));
    }

    // ---- helpers ---------------------------------------------------------------------------

    /** A value as the server writes it into a command: the JSON number or boolean as Java prints it, a string as it is. */
    private static String text(Object v) {
        return String.valueOf(v);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }

    private static Map<String, Object> read(String json) {
        try {
            Object tree = JSON.readValue(json, Object.class);
            return tree instanceof Map<?, ?> m ? new LinkedHashMap<>(cast(m)) : new LinkedHashMap<>();
        } catch (IOException e) {
            return new LinkedHashMap<>();
        }
    }

    private static String write(Object tree) {
        try {
            return JSON.writeValueAsString(tree);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The NUL-separated words the command printed in a real shell. */
    private static List<String> sh(String command) throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder("/bin/sh", "-s").redirectErrorStream(true).start();
        try (var stdin = p.getOutputStream()) {
            stdin.write(command.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        List<String> words = new ArrayList<>(Arrays.asList(out.split("\0", -1)));
        words.removeLast();
        return words;
    }
}
