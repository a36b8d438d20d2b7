package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ax workflow apply|trigger|run|rerun} against a real server running real shell commands. */
class WorkflowCliTest {
    @RegisterExtension
    final CliServer cli = new CliServer("cli-wf-test");

    Cli.Result ax(String... args) {
        return cli.ax(args);
    }

    Path file(String name, String content) throws Exception {
        return Files.writeString(cli.dir().resolve(name), content, StandardCharsets.UTF_8);
    }

    void task(String name, String command) throws Exception {
        Path f = file(name + ".json", """
                {"taskName":"%s","trigger":{"type":"event"},"action":{"type":"shell","command":"%s"}}""".formatted(name, command));
        assertThat(ax("task", "apply", "-f", f.toString()).exitCode()).isZero();
    }

    @Test
    void apply_trigger_show_the_node_table_and_rerun_from_the_failed_node() throws Exception {
        Path flag = cli.dir().resolve("ok.flag");
        task("extract", "echo extract");
        task("load", "test -f " + flag + " || exit 3");
        Path wf = file("wf.json", """
                {"name":"nightly",
                 "nodes":[{"name":"extract","task":"extract"},{"name":"load","task":"load","triggerRule":"allSuccess"}],
                 "edges":[{"from":"extract","to":"load"}]}""");
        Cli.Result applied = ax("workflow", "apply", "-f", wf.toString());
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
        assertThat(applied.out()).startsWith("created workflow nightly v1, 2 nodes");

        Cli.Result triggered = ax("workflow", "trigger", "nightly");
        assertThat(triggered.exitCode()).as(triggered.toString()).isZero();
        Matcher m = Pattern.compile("workflow run (\\d+) of nightly").matcher(triggered.out());
        assertThat(m.find()).as(triggered.out()).isTrue();
        String id = m.group(1);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> ax("workflow", "run", id).out().contains(": FAILED"));
        Cli.Result shown = ax("workflow", "run", id);
        assertThat(shown.out())
                .contains("NODE")
                .contains("STATE")
                .containsPattern("extract\\s+extract\\s+allSuccess\\s+-\\s+SUCCESS")
                .containsPattern("load\\s+load\\s+allSuccess\\s+extract\\s+FAILED");

        Files.writeString(flag, "ok");
        Cli.Result rerun = ax("workflow", "rerun", id, "--from", "load");
        assertThat(rerun.exitCode()).as(rerun.toString()).isZero();
        assertThat(rerun.out()).contains(": RUNNING");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> ax("workflow", "run", id).out().contains(": SUCCESS"));
        assertThat(ax("workflow", "run", id).out())
                .containsPattern("load\\s+load\\s+allSuccess\\s+extract\\s+SUCCESS\\s+\\d+\\s+2");
        assertThat(ax("workflow", "runs").out()).contains("nightly").contains("SUCCESS");

        Cli.Result cycle = ax("workflow", "apply", "-f", file("cycle.json", """
                {"name":"loop","nodes":[{"name":"a","task":"extract"},{"name":"b","task":"load"}],
                 "edges":[{"from":"a","to":"b"},{"from":"b","to":"a"}]}""").toString());
        assertThat(cycle.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(cycle.err()).contains("edges").contains("cycle: a → b → a");
    }
}
