package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.api.HttpOptions;
import dev.ax.api.TestPki;
import dev.ax.api.TlsIdentity;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.TestDatabases;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server speaking HTTPS with a certificate of a private CA for "localhost": an {@code ax executor} process
 * and the CLI trust it with --ca (or AX_CA) and run a task end to end; without it, or under another host
 * name, they fail in one line that says why.
 */
class HttpsCliTest {
    static final String ADMIN = "tls-admin-token";
    static final String EXECUTOR = "tls-executor-token";

    @TempDir
    Path dir;

    final TestPki pki = new TestPki();
    final List<Process> processes = new ArrayList<>();
    AxServer server;
    Path ca;
    String url;

    @BeforeEach
    void start() {
        TestPki.Issued issued = pki.server("RSA", "localhost");
        ca = pki.writeCa(dir.resolve("ca.pem"));
        TlsIdentity tls = TlsIdentity.load(
                pki.writeChain(dir.resolve("chain.pem"), issued),
                TestPki.writeKey(dir.resolve("key.pem"), issued.key(), TestPki.KeyFormat.TRADITIONAL));
        server = AxServer.start(new ServerConfig(
                        0,
                        dir.resolve("data"),
                        TestDatabases.h2(),
                        List.of(),
                        ADMIN,
                        "tls-node",
                        SchedulerConfig.DEFAULT,
                        Duration.ZERO)
                .withHttp(HttpOptions.DEFAULT.withTls(tls)));
        server.store().tx(tx -> {
            server.store().tokens().add(tx, "tls-exec", EXECUTOR, "executor", "test");
            return null;
        });
        url = "https://localhost:" + server.port();
    }

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
        server.close();
    }

    Cli.Result ax(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--token=" + ADMIN);
        return Cli.run(all.toArray(String[]::new));
    }

    /** The ax command in a process of its own, with {@code caEnv} as AX_CA. */
    Process axProcess(Path output, String caEnv, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command =
                new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        pb.environment().remove("AX_CA");
        if (caEnv != null) {
            pb.environment().put("AX_CA", caEnv);
        }
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    @Test
    void an_executor_process_and_the_cli_run_a_task_over_https_trusting_the_ca() throws Exception {
        axProcess(
                dir.resolve("executor.log"),
                null,
                "executor",
                "--server",
                url,
                "--ca",
                ca.toString(),
                "--token",
                EXECUTOR,
                "--group",
                "default",
                "--id",
                "tls-executor");
        Path task = Files.writeString(dir.resolve("task.json"), """
                {"taskName":"over_tls","trigger":{"type":"event"},"action":{"type":"shell","command":"echo sealed-and-delivered"}}""");

        Cli.Result applied = ax("task", "apply", "-f", task.toString(), "--server", url, "--ca", ca.toString());
        assertThat(applied.exitCode()).as(applied.toString()).isZero();
        Cli.Result run = ax("trigger", "over_tls", "--wait", "--timeout", "60", "--server", url, "--ca", ca.toString());

        assertThat(run.exitCode())
                .as(run + "\nexecutor:\n" + Files.readString(dir.resolve("executor.log")))
                .isZero();
        String id = run.out().lines().findFirst().orElseThrow();
        assertThat(run.out()).contains("run " + id + " SUCCESS");
        Cli.Result log = ax("instance", "log", id, "--server", url, "--ca", ca.toString());
        assertThat(log.out()).contains("sealed-and-delivered");
        assertThat(ax("instance", "show", id, "--server", url, "--ca", ca.toString())
                        .out())
                .contains("tls-executor");
    }

    @Test
    void the_cli_takes_the_ca_from_ax_ca_too() throws Exception {
        Path output = dir.resolve("list.out");
        Process list = axProcess(output, ca.toString(), "task", "list", "--server", url, "--token", ADMIN);

        assertThat(list.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(list.exitValue()).as(Files.readString(output)).isZero();
    }

    @Test
    void without_the_ca_the_cli_fails_in_one_line_that_says_why_and_what_to_do() {
        Cli.Result r = ax("task", "list", "--server", url);

        assertThat(r.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err().strip())
                .isEqualTo(
                        "cannot connect securely to the AX server at " + url + ": TLS handshake failed: "
                                + "the server's certificate is not signed by a CA this client trusts (--ca FILE or AX_CA names the CA to trust)");
    }

    @Test
    void a_host_name_the_certificate_does_not_name_fails_in_one_line() {
        Cli.Result r = ax("task", "list", "--server", "https://127.0.0.1:" + server.port(), "--ca", ca.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err().lines().toList()).hasSize(1);
        assertThat(r.err())
                .contains("TLS handshake failed: the server's certificate is not for the host in the URL")
                .contains("127.0.0.1");
    }

    @Test
    void plain_http_to_an_https_server_says_to_use_https_without_printing_binary() {
        Cli.Result r = ax("task", "list", "--server", "http://localhost:" + server.port());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err()).contains("without an HTTP answer (does it speak HTTPS? then use https://)");
        assertThat(r.err().strip().chars()).allMatch(c -> c >= 0x20);
    }

    @Test
    void an_executor_without_the_ca_stops_at_once_with_one_line() {
        Cli.Result r = Cli.run("executor", "--server", url, "--token", EXECUTOR, "--id", "untrusting");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err().lines().toList()).hasSize(1);
        assertThat(r.err())
                .startsWith("cannot register executor untrusting with " + url)
                .contains("the server's certificate is not signed by a CA this client trusts")
                .endsWith("(--ca FILE or AX_CA names the CA to trust)" + System.lineSeparator());
    }

    @Test
    void a_missing_ca_file_is_a_usage_error_naming_it() {
        Cli.Result r = ax(
                "task", "list", "--server", url, "--ca", dir.resolve("nope.pem").toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--ca " + dir.resolve("nope.pem") + ": no such file");
    }

    @Test
    void a_server_whose_key_does_not_match_its_certificate_does_not_start_and_names_both_options() {
        Path chain = pki.writeChain(dir.resolve("other-chain.pem"), pki.server("EC", "localhost"));
        Path otherKey = TestPki.writeKey(
                dir.resolve("other-key.pem"), pki.server("EC", "localhost").key(), TestPki.KeyFormat.PKCS8);

        Cli.Result r = Cli.run(
                "server",
                "--port",
                "0",
                "--data-dir",
                dir.resolve("never").toString(),
                "--tls-cert",
                chain.toString(),
                "--tls-key",
                otherKey.toString());

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err())
                .contains("--tls-key " + otherKey + " does not belong to the certificate in --tls-cert " + chain);
        assertThat(dir.resolve("never")).doesNotExist();
    }

    @Test
    void a_certificate_without_its_key_or_a_missing_file_does_not_start_a_server() {
        Path chain = pki.writeChain(dir.resolve("lonely.pem"), pki.server("RSA", "localhost"));

        Cli.Result alone = Cli.run("server", "--port", "0", "--tls-cert", chain.toString());
        Cli.Result missing = Cli.run(
                "server",
                "--port",
                "0",
                "--tls-cert",
                chain.toString(),
                "--tls-key",
                dir.resolve("gone.pem").toString());

        assertThat(alone.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(alone.err()).contains("--tls-cert and --tls-key go together");
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(missing.err()).contains("--tls-key " + dir.resolve("gone.pem") + ": no such file");
    }
}
