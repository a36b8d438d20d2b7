package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code ax secret} against a real server: the value comes from standard input only, and output shows *** for it. */
class SecretCliTest {
    static final String PASSWORD = "pw-from-stdin-4242";

    @RegisterExtension
    static final CliServer cli = new CliServer("cli-secrets");

    /** Runs {@code ax ARGS} as its own process, as a shell pipe would, with {@code stdin} as its standard input. */
    static Cli.Result axProcess(String stdin, String... args) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command =
                new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        command.add("--server=" + cli.server().url());
        command.add("--token=" + cli.server().adminToken());
        Process p = new ProcessBuilder(command).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("ax " + args[0] + " did not end");
        }
        return new Cli.Result(
                p.exitValue(),
                new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void set_reads_the_value_from_standard_input_and_a_job_printing_it_shows_stars_in_ax_instance_log()
            throws Exception {
        Cli.Result set = axProcess(PASSWORD + "\n", "secret", "set", "db_password");
        assertThat(set.exitCode()).as(set.toString()).isZero();
        assertThat(set.out())
                .startsWith("created secret db_password (key ")
                .contains("{{secret.db_password}}")
                .doesNotContain(PASSWORD);

        Cli.Result list = cli.ax("secret", "list");
        assertThat(list.out())
                .contains("NAME")
                .contains("db_password")
                .contains(cli.server().node().secrets().keyId())
                .doesNotContain(PASSWORD);

        Path task = cli.file("dump.json", """
                {"taskName":"dump","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"echo \\"pw=$DB_PASSWORD\\"","env":{"DB_PASSWORD":"{{secret.db_password}}"}}}""");
        Cli.Result applied = cli.ax("task", "apply", "-f", task.toString());
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
        assertThat(applied.err()).doesNotContain("warning");
        Cli.Result run = cli.ax("trigger", "dump", "--wait");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        String id = run.out().lines().findFirst().orElseThrow();

        Cli.Result log = cli.ax("instance", "log", id);
        assertThat(log.out()).isEqualTo("pw=***\n");

        // The value typed is exactly what was given, without the final newline: the job got it, so it was masked.
        Cli.Result again = axProcess(PASSWORD + "\n", "secret", "set", "db_password");
        assertThat(again.out()).startsWith("updated secret db_password");
    }

    @Test
    void rm_is_refused_while_a_task_uses_the_secret_then_deletes_it() throws Exception {
        assertThat(axProcess("tok-rm-test-1\n", "secret", "set", "rm_token").exitCode())
                .isZero();
        Path task = cli.file("uses.json", """
                {"taskName":"uses_token","trigger":{"type":"event"},
                 "action":{"type":"shell","command":"true","env":{"API_TOKEN":"{{secret.rm_token}}"}}}""");
        cli.ax("task", "apply", "-f", task.toString());

        Cli.Result refused = cli.ax("secret", "rm", "rm_token");
        assertThat(refused.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(refused.err()).contains("uses_token");

        assertThat(cli.ax("task", "delete", "uses_token").exitCode())
                .as("task deleted")
                .isZero();
        Cli.Result removed = cli.ax("secret", "rm", "rm_token");
        assertThat(removed.exitCode()).as(removed.toString()).isZero();
        assertThat(removed.out()).isEqualTo("deleted secret rm_token\n");
        assertThat(cli.ax("secret", "list").out()).doesNotContain("rm_token");
    }

    @Test
    void a_value_too_short_to_mask_is_refused_with_the_reason() throws Exception {
        Cli.Result r = axProcess("abc\n", "secret", "set", "short_one");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(r.err()).contains("value: ").contains("could not be masked");
    }

    @Test
    void rotate_key_seals_every_secret_with_a_new_key() throws Exception {
        assertThat(axProcess("rotate-me-123\n", "secret", "set", "rotating").exitCode())
                .isZero();
        String before = cli.server().node().secrets().keyId();

        Cli.Result r = cli.ax("secret", "rotate-key");

        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out())
                .matches("secret key rotated: \\d+ secrets sealed with key [0-9a-f]{16} \\(was " + before + "\\)\\R");
    }

    @Test
    void ax_server_refuses_to_start_with_an_ax_secret_key_that_is_not_32_bytes_and_names_it(@TempDir Path dir)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "server",
                "--port",
                "0",
                "--data-dir",
                dir.resolve("data").toString(),
                "--no-executor");
        pb.environment().put("AX_SECRET_KEY", "c2hvcnQ=");
        Process server = pb.start();
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            server.destroyForcibly();
            throw new AssertionError("ax server started with a bad AX_SECRET_KEY");
        }

        assertThat(server.exitValue()).isEqualTo(ExitCodes.REFUSED);
        assertThat(new String(server.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
                .contains("cannot start the AX server: cannot start: AX_SECRET_KEY is 5 bytes once decoded")
                .contains("openssl rand -base64 32");
    }
}
