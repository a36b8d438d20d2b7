package dev.ax.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.store.TestDatabases;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The run page and its live log stream show *** for secrets: in output a job printed, and in output stored before the secret. */
class ConsoleSecretsTest {
    static final String PASSWORD = "hunter22-console";
    static final String LATER = "tok-9c2e51f7";
    static ConsoleServer server;

    @BeforeAll
    static void start() {
        server = new ConsoleServer(TestDatabases.h2());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    long runToEnd(String task, Map<String, Object> action) {
        server.node
                .tasks()
                .create(Map.of("taskName", task, "trigger", Map.of("type", "event"), "action", action), "test");
        long id = server.node.tasks().trigger(task, Map.of(), Cause.MANUAL, "test");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> server.store
                                .tx(tx -> server.store.runs().find(tx, id))
                                .orElseThrow()
                                .state()
                        == RunState.SUCCESS);
        return id;
    }

    String stream(long id) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(server.url().resolve("/runs/" + id + "/stream?after=0&state=RUNNING"))
                .header("Cookie", Session.COOKIE + "=" + ConsoleServer.VIEWER)
                .build();
        HttpResponse<InputStream> r = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofInputStream());
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.startsWith("event: state")) {
                lines.add(line);
            }
        }
        return String.join("\n", lines);
    }

    @Test
    void a_job_that_prints_its_secret_shows_stars_on_the_run_page_and_in_the_stream() throws Exception {
        server.node.secrets().set("db_password", PASSWORD, "test");
        long id = runToEnd(
                "dump",
                Map.of(
                        "type",
                        "shell",
                        "command",
                        "echo \"pw=$DB_PASSWORD\"",
                        "env",
                        Map.of("DB_PASSWORD", "{{secret.db_password}}")));
        WebClient web = new WebClient(server.url());
        web.login(ConsoleServer.VIEWER);

        String page = web.get("/runs/" + id).body();
        String stream = stream(id);

        assertThat(page).contains("pw=***").doesNotContain(PASSWORD);
        assertThat(stream).contains("pw=***").doesNotContain(PASSWORD);
    }

    @Test
    void output_stored_before_a_secret_existed_is_masked_when_shown() throws Exception {
        long id = runToEnd("plain", Map.of("type", "shell", "command", "echo token " + LATER));
        WebClient web = new WebClient(server.url());
        web.login(ConsoleServer.VIEWER);
        assertThat(web.get("/runs/" + id).body()).contains("token " + LATER);

        server.node.secrets().set("partner_token", LATER, "test");

        assertThat(web.get("/runs/" + id).body()).contains("token ***").doesNotContain(LATER);
        assertThat(stream(id)).contains("token ***").doesNotContain(LATER);
    }
}
