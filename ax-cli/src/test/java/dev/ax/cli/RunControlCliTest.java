package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.domain.run.RunState;
import dev.ax.store.RunRow;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code ax run terminate|cancel|retry|rerun} and the task counters against a real server (embedded H2,
 * in-process executor for the group {@code default}). Runs that must stay waiting use the group {@code nowhere},
 * which no executor serves.
 */
class RunControlCliTest {
    @RegisterExtension
    static final CliServer cli = new CliServer("cli-test");

    static Cli.Result ax(String... args) {
        return cli.ax(args);
    }

    static void apply(String name, String json) throws IOException {
        Path file = Files.writeString(cli.dir().resolve(name + ".json"), json, StandardCharsets.UTF_8);
        Cli.Result r = ax("task", "apply", "-f", file.toString());
        assertThat(r.exitCode()).as(r.toString()).isZero();
    }

    /** A task fired only by hand; {@code group} "nowhere" keeps its runs waiting. */
    static void eventTask(String name, String command, String group, String policy) throws IOException {
        apply(name, """
                {"taskName":"%s","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"%s","group":"%s"},"policy":%s}
                """.formatted(name, command, group, policy));
    }

    static String trigger(String name) {
        Cli.Result r = ax("trigger", name);
        assertThat(r.exitCode()).as(r.toString()).isZero();
        return r.out().strip();
    }

    static RunRow instance(String id) {
        return cli.server()
                .store()
                .tx(tx ->
                        cli.server().store().runs().find(tx, Long.parseLong(id)).orElseThrow());
    }

    @Test
    void terminate_stops_a_running_process_and_a_second_terminate_exits_1() throws IOException {
        eventTask("sleeper", "sleep 600", "default", "{}");
        String id = trigger("sleeper");
        await().atMost(Duration.ofSeconds(30)).until(() -> instance(id).pid() != null);
        long pid = instance(id).pid();

        Cli.Result r = ax("instance", "terminate", id, "--reason", "stuck on a lock");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("run " + id + " TERMINATED");
        assertThat(instance(id).state()).isEqualTo(RunState.TERMINATED);
        // The executor learns it at its next heartbeat (at most 2 s) and kills the process tree.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
        Cli.Result events = ax("instance", "events", id);
        assertThat(events.out())
                .as(events.toString())
                .contains("RUNNING -> TERMINATED")
                .contains("stuck on a lock");

        Cli.Result again = ax("instance", "terminate", id);
        assertThat(again.exitCode()).as(again.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(again.err()).contains("TERMINATED").contains("only a RUNNING run can be terminated");
        assertThat(again.out()).isEmpty();
    }

    @Test
    void show_lists_what_a_run_waiting_for_its_dependencies_waits_for() throws IOException {
        eventTask("cli_upstream", "true", "nowhere", "{}");
        apply("cli_downstream", """
                {"taskName":"cli_downstream","trigger":{"type":"event"},"action":{"type":"shell","command":"true"},
                 "dependsOn":[{"task":"cli_upstream","scope":"sameDate"}]}
                """);
        String waiting = trigger("cli_downstream");
        String upstream = trigger("cli_upstream");
        Cli.Result show = ax("instance", "show", waiting);
        assertThat(show.exitCode()).as(show.toString()).isZero();
        assertThat(show.out())
                .contains("WAITING_DEPENDENCY")
                .contains("dependencies:")
                .contains("waiting  cli_upstream (sameDate ")
                .contains("READY, run " + upstream);
        assertThat(ax("instance", "cancel", waiting).exitCode()).isZero();
        assertThat(ax("instance", "cancel", upstream).exitCode()).isZero();
    }

    @Test
    void a_cascade_dry_run_lists_the_slots_of_the_task_and_of_its_dependents() throws IOException {
        apply("cli_up", """
                {"taskName":"cli_up","trigger":{"type":"cron","expression":"0 1 * * *"},"action":{"type":"shell","command":"true"}}
                """);
        apply("cli_down", """
                {"taskName":"cli_down","trigger":{"type":"cron","expression":"0 2 * * *"},"action":{"type":"shell","command":"true"},
                 "dependsOn":[{"task":"cli_up"}]}
                """);
        Cli.Result dry = ax(
                "backfill", "start", "cli_up", "--from", "2026-10-01", "--to", "2026-10-02", "--dry-run", "--cascade");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.out())
                .contains("2026-10-01T01:00:00Z  run")
                .contains("cascade: cli_down")
                .contains("2026-10-02T02:00:00Z  run");
        assertThat(dry.out().split("2 slots; nothing created").length).isEqualTo(3);
    }

    @Test
    void cancel_withdraws_a_blocked_run_and_terminate_of_a_waiting_run_says_cancel_it_instead() throws IOException {
        eventTask("stays_waiting", "true", "nowhere", "{}");
        String first = trigger("stays_waiting");
        String second = trigger("stays_waiting");
        assertThat(ax("instance", "show", second).out())
                .contains("BLOCKED")
                .contains("waiting for a concurrency slot (maxConcurrency 1)");

        Cli.Result canceled = ax("instance", "cancel", second, "--reason", "a duplicate");

        assertThat(canceled.exitCode()).as(canceled.toString()).isZero();
        assertThat(canceled.out()).isEqualTo("run " + second + " CANCELED" + System.lineSeparator());
        Cli.Result again = ax("instance", "cancel", second);
        assertThat(again.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(again.err()).contains("CANCELED");

        Cli.Result terminate = ax("instance", "terminate", first);
        assertThat(terminate.exitCode()).as(terminate.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(terminate.err()).contains("cancel it instead");
        assertThat(ax("instance", "cancel", first, "--json").out()).contains("\"state\" : \"CANCELED\"");
    }

    @Test
    void retry_of_a_failed_run_prints_the_new_id_and_wait_exits_1_when_it_fails_again() throws IOException {
        eventTask("always_fails", "exit 3", "default", "{\"maxRetries\":0}");
        Cli.Result first = ax("trigger", "always_fails", "--wait", "--timeout", "60");
        assertThat(first.exitCode()).as(first.toString()).isEqualTo(ExitCodes.REFUSED);
        String failed = first.out().lines().findFirst().orElseThrow();

        Cli.Result r = ax("instance", "retry", failed, "--wait", "--timeout", "60");

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.REFUSED);
        String retry = r.out().lines().findFirst().orElseThrow();
        assertThat(retry).matches("\\d+").isNotEqualTo(failed);
        assertThat(r.out()).contains("run " + retry + " FAILED (exit 3");
        RunRow row = instance(retry);
        assertThat(row.parentId()).isEqualTo(Long.parseLong(failed));
        assertThat(ax("instance", "show", retry).out()).contains("retry");

        Cli.Result noWait = ax("instance", "retry", retry);
        assertThat(noWait.exitCode()).as(noWait.toString()).isZero();
        assertThat(noWait.out().strip()).matches("\\d+");
        assertThat(instance(noWait.out().strip()).rootId()).isEqualTo(Long.parseLong(failed));
    }

    @Test
    void rerun_of_a_successful_run_waits_for_its_success_and_retry_of_it_exits_1() throws IOException {
        eventTask("says_ok", "echo ok", "default", "{}");
        Cli.Result first = ax("trigger", "says_ok", "--wait", "--timeout", "60");
        assertThat(first.exitCode()).as(first.toString()).isZero();
        String ok = first.out().lines().findFirst().orElseThrow();

        Cli.Result retry = ax("instance", "retry", ok);
        assertThat(retry.exitCode()).as(retry.toString()).isEqualTo(ExitCodes.REFUSED);
        assertThat(retry.err()).contains("re-run it instead");

        Cli.Result rerun = ax("instance", "rerun", ok, "--wait", "--timeout", "60");
        assertThat(rerun.exitCode()).as(rerun.toString()).isZero();
        String again = rerun.out().lines().findFirst().orElseThrow();
        assertThat(again).isNotEqualTo(ok);
        assertThat(rerun.out()).contains("run " + again + " SUCCESS");
    }

    @Test
    void an_unknown_instance_exits_1_for_each_command() {
        for (String verb : List.of("terminate", "cancel", "retry", "rerun")) {
            Cli.Result r = ax("instance", verb, "999999");
            assertThat(r.exitCode()).as(verb + "\n" + r).isEqualTo(ExitCodes.REFUSED);
            assertThat(r.err()).as(verb).contains("no run 999999");
        }
    }

    @Test
    void task_show_prints_the_counters() throws IOException {
        eventTask("skips_when_busy", "true", "nowhere", "{\"overflow\":\"SKIP\"}");
        String first = trigger("skips_when_busy");
        String second = trigger("skips_when_busy");
        assertThat(instance(second).state()).isEqualTo(RunState.SKIPPED);

        Cli.Result show = ax("task", "show", "skips_when_busy");

        assertThat(show.exitCode()).as(show.toString()).isZero();
        assertThat(show.out()).containsPattern("overlap skipped:\\s+1\\R").containsPattern("queue dropped:\\s+0\\R");
        ax("instance", "cancel", first);
    }
}
