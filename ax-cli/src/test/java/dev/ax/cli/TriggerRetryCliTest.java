package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.store.AnswerLosingProxy;
import dev.ax.store.RunStore.RunFilter;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ax trigger} sends one idempotency key per invocation and, when the answer may have been lost, sends the
 * request again with it: against a real server (embedded H2), through a proxy that loses answers.
 */
class TriggerRetryCliTest {
    @RegisterExtension
    final CliServer cli = new CliServer("cli-retry-test");

    @BeforeEach
    void task() throws IOException {
        Path file = Files.writeString(cli.dir().resolve("once.json"), """
                {"taskName":"once","trigger":{"type":"event"},"action":{"type":"shell","command":"true"}}
                """, StandardCharsets.UTF_8);
        Cli.Result r = cli.ax("task", "apply", "-f", file.toString());
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    Cli.Result axThrough(AnswerLosingProxy proxy, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--server=" + proxy.uri());
        all.add("--token=" + cli.server().adminToken());
        return Cli.run(all.toArray(String[]::new));
    }

    int runs() {
        return cli.server()
                .store()
                .tx(tx -> cli.server()
                        .store()
                        .runs()
                        .list(tx, new RunFilter("once", null, null, null), Long.MAX_VALUE, 100))
                .size();
    }

    @Test
    void a_trigger_whose_answer_is_lost_is_sent_again_with_the_same_key_and_makes_one_run() {
        try (AnswerLosingProxy proxy = new AnswerLosingProxy(cli.server().url().getPort(), 1)) {
            Cli.Result r = axThrough(proxy, "trigger", "once");

            assertThat(r.exitCode()).as(r.toString()).isZero();
            List<String> keys = proxy.headerOfEachRequest("Idempotency-Key");
            assertThat(keys).as("the lost attempt and its retry").hasSize(2);
            assertThat(keys.getFirst()).matches("[0-9a-f-]{36}");
            assertThat(keys.get(1)).isEqualTo(keys.getFirst());
            assertThat(r.err())
                    .contains("retrying with the same Idempotency-Key " + keys.getFirst() + " after attempt 1 of 4")
                    .contains("was created by an earlier attempt whose answer was lost; no second run");
            assertThat(runs()).isEqualTo(1);
            long id = Long.parseLong(r.out().strip());
            String task = cli.server()
                    .store()
                    .tx(tx -> cli.server().store().runs().find(tx, id))
                    .orElseThrow()
                    .taskName();
            assertThat(task).as("the id printed is the run's").isEqualTo("once");
        }
    }

    @Test
    void each_invocation_sends_a_key_of_its_own() {
        try (AnswerLosingProxy proxy = new AnswerLosingProxy(cli.server().url().getPort(), 0)) {
            Cli.Result first = axThrough(proxy, "trigger", "once");
            Cli.Result second = axThrough(proxy, "trigger", "once");

            assertThat(first.exitCode()).as(first.toString()).isZero();
            assertThat(second.exitCode()).as(second.toString()).isZero();
            assertThat(second.out()).isNotEqualTo(first.out());
            assertThat(proxy.headerOfEachRequest("Idempotency-Key"))
                    .hasSize(2)
                    .doesNotHaveDuplicates()
                    .doesNotContainNull();
            assertThat(runs()).isEqualTo(2);
        }
    }

    @Test
    void the_same_idempotency_key_given_again_prints_the_first_run() {
        Cli.Result first = cli.ax("trigger", "once", "--idempotency-key", "nightly-2026-12-01");
        Cli.Result again = cli.ax("trigger", "once", "--idempotency-key", "nightly-2026-12-01");

        assertThat(first.exitCode()).as(first.toString()).isZero();
        assertThat(again.exitCode()).as(again.toString()).isZero();
        assertThat(again.out()).isEqualTo(first.out());
        assertThat(again.err())
                .contains("was created by an earlier request with Idempotency-Key nightly-2026-12-01; no new run");
        assertThat(runs()).isEqualTo(1);
        assertThat(cli.ax("trigger", "once", "--idempotency-key", "nightly-2026-12-01", "-p", "x=1")
                        .err())
                .as("another request under the key")
                .contains("used at")
                .contains("for a different request");
    }

    @Test
    void a_key_that_is_not_printable_ascii_is_a_usage_error() {
        Cli.Result r = cli.ax("trigger", "once", "--idempotency-key", "caf\u00e9");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--idempotency-key must be 1 to 200 printable ASCII characters");
        assertThat(runs()).isZero();
    }

    @Test
    void a_server_that_stays_unreachable_is_tried_again_then_reported_with_the_key_to_send_again() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }

        Cli.Result r = Cli.run(
                "trigger", "once", "--idempotency-key", "k-1", "--server=http://127.0.0.1:" + closedPort, "--token=t");

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err())
                .contains("retrying with the same Idempotency-Key k-1 after attempt 3 of 4: cannot reach the AX server")
                .contains("no answer after 4 attempts with Idempotency-Key k-1; the last: cannot reach the AX server")
                .contains("connection refused")
                .contains(
                        "sending the same key again is safe and makes at most one: ax trigger once --idempotency-key k-1");
    }
}
