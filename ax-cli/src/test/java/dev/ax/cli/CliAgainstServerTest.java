package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ax client commands against a real server (embedded H2, in-process executor, any free port). */
class CliAgainstServerTest {
    static final String SEED_TASK = """
            {"taskName":"daily_report",
             "trigger":{"type":"cron","expression":"0 2 * * *","timezone":"Asia/Shanghai"},
             "action":{"type":"shell","command":"python /data/scripts/gen_report.py --date {{yesterday}}"},
             "policy":{"maxRetries":2,"retryIntervalSeconds":300,"timeoutSeconds":1200,
                       "notifyOnFailure":["dingtalk","email"]}}
            """;

    @RegisterExtension
    static final CliServer cli = new CliServer("cli-test");

    static Cli.Result ax(String... args) {
        return cli.ax(args);
    }

    static Path file(String name, String content) throws IOException {
        return Files.writeString(cli.dir().resolve(name), content, StandardCharsets.UTF_8);
    }

    @Test
    void apply_creates_the_seed_task_and_prints_its_next_fire_then_updates_it() throws IOException {
        Path seed = file("daily_report.json", SEED_TASK);

        Cli.Result created = ax("task", "apply", "-f", seed.toString());

        assertThat(created.exitCode()).as(created.toString()).isZero();
        // 02:00 in Shanghai (UTC+8, no DST) is 18:00 UTC the day before.
        assertThat(created.out())
                .as(created.toString())
                .matches("created daily_report v1, next fire \\d{4}-\\d\\d-\\d\\dT18:00:00Z\\R");
        assertThat(created.err()).contains("warning: ").contains("dingtalk");

        Cli.Result updated = ax("task", "apply", "-f", seed.toString());
        assertThat(updated.exitCode()).as(updated.toString()).isZero();
        assertThat(updated.out()).startsWith("updated daily_report v");

        Cli.Result list = ax("task", "list");
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(list.out()).contains("NAME").contains("daily_report").contains("cron 0 2 * * * (Asia/Shanghai)");

        Cli.Result show = ax("task", "show", "daily_report");
        assertThat(show.exitCode()).as(show.toString()).isZero();
        assertThat(show.out()).contains("gen_report.py").contains("active");

        Cli.Result json = ax("task", "show", "daily_report", "--json");
        assertThat(json.out()).contains("\"taskName\" : \"daily_report\"");
    }

    @Test
    void apply_of_an_invalid_task_exits_1_with_each_field_error() throws IOException {
        Path bad = file("bad.json", """
                {"taskName":"bad_cron","trigger":{"type":"cron","expression":"99 * * * *"},
                 "action":{"type":"shell","command":""}}
                """);

        Cli.Result r = ax("task", "apply", "-f", bad.toString());

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.err()).as(r.toString()).contains("  trigger.expression: ").contains("  action.command: ");
        assertThat(r.out()).isEmpty();
        assertThat(ax("task", "show", "bad_cron").exitCode()).isEqualTo(ExitCodes.REFUSED);
    }

    @Test
    void apply_of_a_file_that_is_not_json_exits_1_and_says_where() throws IOException {
        Path broken = file("broken.json", "{\"taskName\": \"x\",\n  trigger: }");

        Cli.Result r = ax("task", "apply", "-f", broken.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.err()).contains("is not valid JSON (line 2");
    }

    @Test
    void trigger_wait_follows_an_event_task_to_success_and_its_log_shows_the_output() throws IOException {
        assertThat(ax("task", "apply", "-f", file("echo.json", """
                {"taskName":"echo_ok","trigger":{"type":"event"},"action":{"type":"shell","command":"echo ok"}}
                """).toString()).exitCode())
                .isZero();

        Cli.Result r = ax("trigger", "echo_ok", "--wait", "--timeout", "60");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        String id = r.out().lines().findFirst().orElseThrow();
        assertThat(r.out()).contains("run " + id + " SUCCESS (exit 0");

        Cli.Result log = ax("run", "log", id);
        assertThat(log.exitCode()).as(log.toString()).isZero();
        assertThat(log.out()).contains("ok");

        Cli.Result show = ax("run", "show", id);
        assertThat(show.out())
                .as(show.toString())
                .contains("SUCCESS")
                .contains("manual")
                .containsPattern("pid:\\s+\\d+");

        Cli.Result events = ax("run", "events", id);
        assertThat(events.exitCode()).as(events.toString()).isZero();
        assertThat(events.out()).contains("RUNNING -> SUCCESS");

        // "ax instance", the name of earlier versions, still works.
        Cli.Result list = ax("instance", "list", "--task", "echo_ok");
        assertThat(list.out()).as(list.toString()).contains(id).contains("SUCCESS");
    }

    @Test
    void trigger_wait_exits_1_when_the_run_fails() throws IOException {
        ax("task", "apply", "-f", file("fail.json", """
                {"taskName":"always_fails","trigger":{"type":"event"},"action":{"type":"shell","command":"exit 3"},
                 "policy":{"maxRetries":0}}
                """).toString());

        Cli.Result r = ax("trigger", "always_fails", "--wait", "--timeout", "60");

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.out()).contains("FAILED").contains("exit 3");
    }

    @Test
    void trigger_passes_params_and_prints_only_the_instance_id() throws IOException {
        ax("task", "apply", "-f", file("params.json", """
                {"taskName":"with_params","trigger":{"type":"event"},"action":{"type":"shell","command":"echo {{params.day}}"}}
                """).toString());

        Cli.Result r = ax("trigger", "with_params", "--param", "day=2026-01-01");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out().strip()).matches("\\S+");
    }

    @Test
    void pause_resume_versions_and_delete_a_task() throws IOException {
        ax("task", "apply", "-f", file("life.json", """
                {"taskName":"lifecycle","trigger":{"type":"interval","intervalSeconds":3600},
                 "action":{"type":"shell","command":"true"}}
                """).toString());

        assertThat(ax("task", "pause", "lifecycle").out()).isEqualTo("paused lifecycle" + System.lineSeparator());
        assertThat(ax("task", "list", "--search", "lifecycle").out())
                .contains("paused")
                .contains("every 3600s");
        Cli.Result resumed = ax("task", "resume", "lifecycle");
        assertThat(resumed.out()).as(resumed.toString()).startsWith("resumed lifecycle");

        Cli.Result versions = ax("task", "versions", "lifecycle");
        assertThat(versions.exitCode()).as(versions.toString()).isZero();
        assertThat(versions.out()).contains("VERSION").contains("CREATE");

        assertThat(ax("task", "delete", "lifecycle").out()).startsWith("deleted lifecycle");
        Cli.Result gone = ax("task", "show", "lifecycle");
        assertThat(gone.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(gone.err()).isNotBlank();
    }

    @Test
    void cron_next_prints_one_line_per_fire_time_with_the_local_time() {
        Cli.Result r = ax("cron", "next", "0 2 * * *", "--tz", "Asia/Shanghai", "-n", "3");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines)
                .hasSize(3)
                .allSatisfy(
                        line -> assertThat(line)
                                .matches(
                                        "\\d{4}-\\d\\d-\\d\\dT18:00:00Z  \\w{3} \\d{4}-\\d\\d-\\d\\d 02:00:00 \\+08:00 Asia/Shanghai"));
    }

    @Test
    void cron_next_of_a_bad_expression_exits_1_with_the_servers_reason() {
        Cli.Result r = ax("cron", "next", "61 * * * *");

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.err()).isNotBlank();
    }

    @Test
    void a_wrong_token_exits_1_and_says_how_to_pass_one() {
        Cli.Result r = Cli.run("task", "list", "--server", cli.server().url().toString(), "--token", "not-the-token");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.err()).contains("--token");
    }

    @Test
    void an_unreachable_server_exits_3() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }

        Cli.Result r = Cli.run("task", "list", "--server", "http://127.0.0.1:" + closedPort, "--token", "t");

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err()).contains("cannot reach the AX server at http://127.0.0.1:" + closedPort);
    }
}
