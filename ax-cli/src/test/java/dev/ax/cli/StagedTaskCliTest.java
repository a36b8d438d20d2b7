package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ax task test-run / canary / promote / rollback against a real server whose in-process executor runs the shell. */
class StagedTaskCliTest {
    @RegisterExtension
    static final CliServer cli = new CliServer("cli-test");

    static Cli.Result ax(String... args) {
        return cli.ax(args);
    }

    static String file(String name, String taskName, String command) throws IOException {
        String json = """
                {"taskName":"%s","trigger":{"type":"cron","expression":"0 2 * * *"},"action":{"type":"shell","command":"%s"}}""".formatted(taskName, command);
        return Files.writeString(cli.dir().resolve(name), json, StandardCharsets.UTF_8)
                .toString();
    }

    @Test
    void test_run_wait_runs_a_draft_once_and_saves_nothing() throws IOException {
        Cli.Result ok = ax(
                "task", "test-run", "-f", file("draft.json", "draft_only", "echo tested"), "--wait", "--timeout", "60");
        assertThat(ok.exitCode()).as(ok.toString()).isZero();
        assertThat(ok.out()).contains("SUCCESS");
        String id = ok.out().lines().findFirst().orElseThrow().strip();
        assertThat(ax("instance", "log", id).out()).contains("tested");
        assertThat(ax("task", "show", "draft_only").exitCode()).isEqualTo(ExitCodes.REFUSED);

        Cli.Result failing =
                ax("task", "test-run", "-f", file("bad.json", "draft_only", "exit 1"), "--wait", "--timeout", "60");
        assertThat(failing.exitCode()).as(failing.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(failing.out()).contains("FAILED");

        Cli.Result invalid = ax("task", "test-run", "-f", file("invalid.json", "draft_only", "echo {{nope"));
        assertThat(invalid.exitCode()).as(invalid.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(invalid.err()).contains("action.command");
    }

    @Test
    void canary_then_promote_and_canary_then_rollback() throws IOException {
        assertThat(ax("task", "apply", "-f", file("v1.json", "nightly", "echo v1"))
                        .exitCode())
                .isZero();
        Cli.Result canary = ax("task", "canary", "-f", file("v2.json", "nightly", "echo v2"), "--percent", "10");
        assertThat(canary.exitCode()).as(canary.toString()).isZero();
        assertThat(canary.out()).contains("canary nightly v2 gets 10 % of new runs; v1 stays stable");
        Cli.Result twice = ax("task", "canary", "-f", file("v3.json", "nightly", "echo v3"), "--runs", "2");
        assertThat(twice.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(twice.err()).contains("already has a canary in progress");
        Cli.Result promoted = ax("task", "promote", "nightly");
        assertThat(promoted.exitCode()).as(promoted.toString()).isZero();
        assertThat(promoted.out()).contains("now v3");

        assertThat(ax("task", "canary", "-f", file("v4.json", "nightly", "echo v4"), "--runs", "2")
                        .exitCode())
                .isZero();
        Cli.Result rolled = ax("task", "rollback", "nightly");
        assertThat(rolled.exitCode()).as(rolled.toString()).isZero();
        assertThat(rolled.out()).contains("new runs use v3");
        assertThat(ax("task", "versions", "nightly").out()).contains("PROMOTE", "CANARY");
    }
}
