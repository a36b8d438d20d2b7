package dev.ax.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.RunRow;
import dev.ax.store.RunStore;
import dev.ax.store.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parameters are data, never code, from the API to the process or request that does the work: a real server,
 * its in-process executor, real shells, a real HTTP service.
 */
class SafeInputsEndToEndTest {
    @TempDir
    Path dir;

    AxServer server;
    ServerClient admin;
    HttpServer service;
    final List<String> requests = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        service.createContext("/", exchange -> {
            requests.add(exchange.getRequestURI().getRawPath() + "?"
                    + exchange.getRequestURI().getRawQuery() + "\n"
                    + exchange.getRequestHeaders().getFirst("X-Note") + "\n"
                    + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        service.start();
        server = AxServer.start(new ServerConfig(
                0,
                dir.resolve("data"),
                TestDatabases.h2(),
                List.of("default"),
                "admin-token",
                "node-1",
                SchedulerConfig.DEFAULT,
                Duration.ZERO));
        admin = new ServerClient(server.url(), "admin-token");
    }

    @AfterEach
    void stop() {
        server.close();
        service.stop(0);
    }

    private long trigger(String task, String body) {
        ServerClient.Response r = admin.post("/api/tasks/" + task + "/trigger", body);
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("instanceId").asLong();
    }

    private RunRow awaitEnd(long id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> run(id).state().isTerminal());
        return run(id);
    }

    private RunRow run(long id) {
        return server.store().tx(tx -> server.store().runs().find(tx, id).orElseThrow());
    }

    private String log(long id) {
        return String.join(
                "\n",
                server.store().tx(tx -> server.store().logs().read(tx, id, 0, 100)).stream()
                        .map(l -> l.text())
                        .toList());
    }

    private int runCount() {
        return server.store()
                .tx(tx -> server.store().runs().list(tx, RunStore.RunFilter.ALL, Long.MAX_VALUE, 1000))
                .size();
    }

    @Test
    void a_parameter_that_looks_like_commands_is_printed_not_run() throws Exception {
        Path marker = dir.resolve("pwned");
        assertThat(admin.post("/api/tasks", """
                {"taskName":"greet","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"echo hello {{params.who}}; echo \\"in quotes: {{params.who}}\\"; printf '%s' \\"$AX_PARAM_WHO\\""}}
                """).status()).isEqualTo(201);
        String who = "x; id; echo $(whoami) `touch " + marker + "`; touch " + marker;
        long id = trigger("greet", "{\"params\":{\"who\":" + new ObjectMapper().writeValueAsString(who) + "}}");

        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(log(id))
                .contains("hello " + who)
                .contains("in quotes: " + who)
                .contains(who)
                .doesNotContain("uid=");
        assertThat(Files.exists(marker)).isFalse();
    }

    @Test
    void a_nul_character_is_refused_with_the_parameters_name_and_nothing_is_created() {
        admin.post(
                "/api/tasks",
                "{\"taskName\":\"t\",\"trigger\":{\"type\":\"event\"},\"action\":{\"type\":\"shell\",\"command\":\"echo {{params.a}}\"}}");
        int before = runCount();
        ServerClient.Response r = admin.post("/api/tasks/t/trigger", "{\"params\":{\"a\":\"x\\u0000y\"}}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains("\"field\":\"params.a\"").contains("NUL");
        assertThat(runCount()).isEqualTo(before);
    }

    @Test
    void http_values_are_encoded_for_the_url_and_the_json_body_and_a_header_line_break_is_refused() {
        String base = "http://127.0.0.1:" + service.getAddress().getPort();
        assertThat(admin.post("/api/tasks", """
                {"taskName":"notify","trigger":{"type":"event"},
                 "action":{"type":"http","method":"POST","url":"%s/orders/{{params.id}}?q={{params.q}}",
                           "headers":{"Content-Type":"application/json","X-Note":"{{params.note}}"},
                           "body":"{\\"who\\":\\"{{params.who}}\\",\\"n\\":{{params.n}}}"}}
                """.formatted(base)).status()).isEqualTo(201);

        int before = runCount();
        ServerClient.Response refused = admin.post(
                "/api/tasks/notify/trigger",
                "{\"params\":{\"id\":\"1\",\"q\":\"x\",\"note\":\"a\\r\\nX-Admin: 1\",\"who\":\"w\",\"n\":1}}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body()).contains("\"field\":\"params.note\"").contains("line break");
        assertThat(runCount()).isEqualTo(before);

        long id = trigger(
                "notify",
                "{\"params\":{\"id\":\"../admin?x=1#\",\"q\":\"a&b=c d\",\"note\":\"plain note\","
                        + "\"who\":\"a\\\",\\\"admin\\\":true,\\\"x\\\":\\\"\",\"n\":\"2\"}}");
        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(requests)
                .singleElement()
                .isEqualTo("/orders/..%2Fadmin%3Fx%3D1%23?q=a%26b%3Dc%20d\nplain note\n"
                        + "{\"who\":\"a\\\",\\\"admin\\\":true,\\\"x\\\":\\\"\",\"n\":\"2\"}");
    }

    @Test
    void declared_parameters_refuse_a_bad_value_naming_it_and_fill_in_defaults() {
        assertThat(admin.post("/api/tasks", """
                {"taskName":"report","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"echo {{params.date}} {{params.region}} {{params.limit}}"},
                 "params":{"date":{"type":"date","required":true},"region":{"enum":["cn","us"]},
                           "limit":{"type":"integer","min":1,"max":1000,"default":100}}}
                """).status()).isEqualTo(201);
        int before = runCount();
        ServerClient.Response r = admin.post(
                "/api/trigger", "{\"taskName\":\"report\",\"params\":{\"date\":\"2026-11-30\",\"region\":\"eu\"}}");
        assertThat(r.status()).isEqualTo(400);
        JsonNode field = r.json().get("error").get("fields").get(0);
        assertThat(field.get("field").asText()).isEqualTo("params.region");
        assertThat(field.get("reason").asText()).isEqualTo("must be one of cn, us");
        assertThat(admin.post("/api/trigger", "{\"taskName\":\"report\",\"params\":{\"region\":\"cn\"}}")
                        .body())
                .contains("\"field\":\"params.date\"")
                .contains("is required");
        assertThat(admin.post(
                                "/api/trigger",
                                "{\"taskName\":\"report\",\"params\":{\"date\":\"2026-11-30\",\"who\":1}}")
                        .body())
                .contains("\"field\":\"params.who\"")
                .contains("is not declared");
        assertThat(runCount()).isEqualTo(before);

        long id = trigger("report", "{\"params\":{\"date\":\"2026-11-30\",\"region\":\"us\"}}");
        assertThat(awaitEnd(id).state()).isEqualTo(RunState.SUCCESS);
        assertThat(log(id)).contains("2026-11-30 us 100");
    }
}
