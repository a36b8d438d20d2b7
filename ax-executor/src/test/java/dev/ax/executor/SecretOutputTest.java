package dev.ax.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.protocol.Completion;
import dev.ax.domain.protocol.HttpCall;
import dev.ax.domain.protocol.WorkItem;
import dev.ax.executor.shell.ShellRunner;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real runs whose work carries secrets: nothing that leaves the executor holds their values. */
class SecretOutputTest {
    static final String PASSWORD = "hunter22-correct-horse";
    static final String PEM =
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw\nggSjAgEAAoIBAQC7VJTUt9Us8cKj\n-----END PRIVATE KEY-----";

    private final FakeChannel server = new FakeChannel();
    private ExecutorAgent agent;

    @AfterEach
    void close() {
        if (agent != null) {
            agent.close();
            assertThat(agent.errorCount()).isZero();
        }
    }

    private void start() {
        agent = new ExecutorAgent(
                ExecutorConfig.of("exec-1", List.of("default")).withPollWaitMillis(200),
                server,
                new ShellRunner(Duration.ofSeconds(1)));
        agent.start();
    }

    private Completion completionOf(long id) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> server.completionsOf(id).size() == 1);
        return server.completionsOf(id).getFirst();
    }

    /** Every text the fake server received about a run: its output and its completion's message. */
    private String everythingSent(long id) {
        return String.join("\n", server.linesOf(id, "stdout")) + "\n" + String.join("\n", server.linesOf(id, "stderr"))
                + "\n" + server.completionsOf(id).getFirst().message();
    }

    @Test
    void a_job_that_prints_its_secrets_shows_stars_even_across_a_64_kib_cut_and_line_by_line_for_a_pem() {
        String command = "echo \"pw=$DB_PASSWORD\"; echo \"$TLS_KEY\" >&2;"
                // 65,530 bytes, then the password: the 64 KiB cut of the line falls inside the value.
                + " head -c 65530 /dev/zero | tr '\\0' x; echo \"$DB_PASSWORD tail\"; exit 3";
        server.work.add(new WorkItem(
                        1,
                        1,
                        "job",
                        1,
                        "req-1",
                        Instant.parse("2026-01-01T00:00:00Z"),
                        "shell",
                        command,
                        Map.of("DB_PASSWORD", PASSWORD, "TLS_KEY", PEM),
                        null,
                        30L,
                        30_000)
                .withMasks(List.of(PASSWORD, PEM)));
        start();

        Completion done = completionOf(1);

        assertThat(done.exitCode()).isEqualTo(3);
        List<String> stdout = server.linesOf(1, "stdout");
        assertThat(stdout.getFirst()).isEqualTo("pw=***");
        assertThat(String.join("", stdout.subList(1, stdout.size()))).isEqualTo("x".repeat(65530) + "*** tail");
        assertThat(server.linesOf(1, "stderr")).containsExactly("***", "***", "***", "***");
        assertThat(everythingSent(1))
                .doesNotContain("hunter22")
                .doesNotContain("MIIEvQ")
                .doesNotContain("BEGIN PRIVATE");
    }

    @Test
    void an_http_call_logs_its_url_masked_and_an_error_quoting_the_url_is_masked_in_the_log_and_the_message() {
        server.work.add(http(2, "http://127.0.0.1:1/hook/" + PASSWORD));
        server.work.add(http(3, "http://bad host/hook/" + PASSWORD));
        start();

        Completion refused = completionOf(2);
        Completion malformed = completionOf(3);

        assertThat(refused.success()).isFalse();
        assertThat(server.linesOf(2, "stdout"))
                .contains("[ax] POST http://127.0.0.1:1/hook/*** (X-AX-Request-ID req-2)");
        assertThat(malformed.message()).contains("http://bad host/hook/***");
        assertThat(server.linesOf(3, "stderr")).singleElement().asString().contains("hook/***");
        assertThat(everythingSent(2)).doesNotContain(PASSWORD);
        assertThat(everythingSent(3)).doesNotContain(PASSWORD);
    }

    private static WorkItem http(long id, String url) {
        return new WorkItem(
                        id,
                        1,
                        "hook",
                        1,
                        "req-" + id,
                        Instant.parse("2026-01-01T00:00:00Z"),
                        "http",
                        null,
                        Map.of(),
                        null,
                        10L,
                        30_000,
                        new HttpCall("POST", url, Map.of(), null, false),
                        null,
                        Map.of())
                .withMasks(List.of(PASSWORD));
    }
}
