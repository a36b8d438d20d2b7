package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.executor.Hosts;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What the command line accepts and refuses, without a server. */
class CommandLineTest {

    @Test
    void an_executor_without_an_id_is_named_by_its_host_and_process_so_two_on_one_host_never_share_a_name() {
        assertThat(ExecutorCommand.defaultId())
                .isEqualTo(Hosts.name() + "-" + ProcessHandle.current().pid());
    }

    @Test
    void server_refuses_a_lease_shorter_than_a_second_naming_the_option() {
        Cli.Result r = Cli.run("server", "--lease", "PT0.5S");
        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--lease must be at least PT1S, was PT0.5S");
        assertThat(Cli.run("server", "--lease", "30s").err()).contains("--lease must be an ISO-8601 duration");
    }

    @Test
    void every_command_has_help_that_exits_0() {
        List<List<String>> paths = new ArrayList<>();
        collect(Main.commandLine(Map.of(), new String[0]), new ArrayList<>(), paths);
        assertThat(paths).hasSizeGreaterThan(15);
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            assertThat(r.exitCode()).as(String.join(" ", args) + "\n" + r).isZero();
            assertThat(r.out()).as(String.join(" ", args)).contains("Usage: ax");
        }
    }

    @Test
    void a_command_line_holds_only_the_command_called_and_help_lists_them_all() {
        assertThat(Main.commandLine(Map.of(), new String[] {"task", "list"}).getSubcommands())
                .containsOnlyKeys("task");
        assertThat(Main.commandLine(Map.of(), new String[] {"instance", "list"}).getSubcommands())
                .containsOnlyKeys("run", "instance");
        assertThat(Main.commandLine(Map.of(), new String[] {"--help"}).getSubcommands())
                .containsKeys("server", "executor", "task", "run", "cron", "db", "help");

        Cli.Result help = Cli.run("--help");
        assertThat(help.out()).contains("server", "executor", "task", "workflow", "backfill", "token", "audit");
        Cli.Result typo = Cli.run("tsak", "list");
        assertThat(typo.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(typo.err()).contains("Unmatched arguments from index 0: 'tsak'", "task", "workflow");
    }

    private static void collect(CommandLine cmd, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        cmd.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help")) {
                List<String> next = new ArrayList<>(path);
                next.add(name);
                collect(sub, next, into);
            }
        });
    }

    @Test
    void version_names_ax() {
        Cli.Result r = Cli.run("--version");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).startsWith("ax ");
    }

    @Test
    void a_bare_group_command_prints_its_usage_and_exits_2() {
        Cli.Result r = Cli.run("task");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("apply").contains("list");
    }

    @Test
    void unknown_commands_options_and_missing_arguments_exit_2() {
        assertThat(Cli.run("frobnicate").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(Cli.run("task", "list", "--colour").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(Cli.run("trigger").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(Cli.run("trigger", "x", "--param", "no-equals-sign").exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(Cli.run("task", "apply").exitCode()).isEqualTo(ExitCodes.USAGE);
    }

    @Test
    void a_server_url_that_is_not_http_exits_2() {
        Cli.Result r = Cli.run("task", "list", "--server", "127.0.0.1:7070", "--token", "t");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--server must be a URL");
    }

    @Test
    void apply_of_a_missing_file_exits_2() {
        Cli.Result r = Cli.run(
                "task", "apply", "-f", "/nonexistent/task.json", "--server", "http://127.0.0.1:9", "--token", "t");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("no such file");
    }

    @Test
    void server_refuses_a_db_url_of_a_database_it_cannot_share_before_starting() {
        Cli.Result r = Cli.run("server", "--db-url", "jdbc:oracle:thin:@db:1521/ax");

        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--db-url must start with jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:");
        // The embedded H2 is --data-dir's: a node given an H2 URL would share a database H2 cannot share safely.
        assertThat(Cli.run("server", "--db-url", "jdbc:h2:tcp://db/ax").err()).contains("--db-url must start with");
    }

    @Test
    void server_refuses_db_credentials_without_a_db_url_and_contradicting_executor_options() {
        assertThat(Cli.run("server", "--db-user", "ax").err()).contains("need --db-url");
        assertThat(Cli.run("server", "--no-executor", "--executor-groups", "etl")
                        .exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(Cli.run("server", "--port", "70000").err()).contains("port must be between 0 and 65535");
    }

    @Test
    void server_refuses_an_idempotency_window_that_is_not_a_positive_iso_8601_duration() {
        Cli.Result words = Cli.run("server", "--idempotency-window", "24h");
        assertThat(words.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(words.err())
                .contains("--idempotency-window must be an ISO-8601 duration such as PT24H, PT30M or P7D, was '24h'");

        Cli.Result zero = Cli.run("server", "--idempotency-window", "PT0S");
        assertThat(zero.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(zero.err()).contains("--idempotency-window must be positive and at most P3650D, was PT0S");
        assertThat(Cli.run("server", "--idempotency-window", "-PT1H").err())
                .contains("--idempotency-window must be positive");
    }

    @Test
    void server_takes_its_idempotency_window_from_the_option_and_a_day_without_it() {
        ServerCommand given = new ServerCommand();
        new CommandLine(given).parseArgs("--idempotency-window", "PT30M");
        ServerCommand none = new ServerCommand();
        new CommandLine(none).parseArgs();

        assertThat(given.config().scheduler().idempotencyWindow()).isEqualTo(Duration.ofMinutes(30));
        assertThat(none.config().scheduler().idempotencyWindow()).isEqualTo(Duration.ofHours(24));
    }

    @Test
    void server_takes_its_language_from_the_option_the_environment_or_a_file_and_refuses_one_ax_does_not_speak() {
        ServerCommand chinese = new ServerCommand();
        new CommandLine(chinese).parseArgs("--locale", "zh-CN");
        ServerCommand none = new ServerCommand();
        new CommandLine(none).parseArgs();
        assertThat(chinese.config().locale()).isEqualTo(Locale.SIMPLIFIED_CHINESE);
        assertThat(none.config().locale()).isEqualTo(Locale.ENGLISH);

        Cli.Result french = Cli.run("server", "--locale", "fr");
        assertThat(french.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(french.err()).contains("--locale").contains("must be one of en, zh-CN, was 'fr'");
        Cli.Result fromEnv = Cli.runWith(Map.of("AX_LOCALE", "ja"), "server", "--print-config");
        assertThat(fromEnv.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(fromEnv.err()).contains("--locale").contains("from AX_LOCALE");
        Cli.Result printed = Cli.runWith(Map.of("AX_LOCALE", "zh_cn"), "server", "--print-config");
        assertThat(printed.exitCode()).as(printed.toString()).isZero();
        assertThat(printed.out()).contains("locale = zh-CN    # environment AX_LOCALE");
    }

    @Test
    void server_takes_its_retention_from_the_options_and_refuses_one_that_is_no_duration() {
        ServerCommand given = new ServerCommand();
        new CommandLine(given).parseArgs("--retention-runs", "PT10S", "--retention-logs", "P7D");
        ServerCommand none = new ServerCommand();
        new CommandLine(none).parseArgs();

        assertThat(given.config().scheduler().retention().runs()).isEqualTo(Duration.ofSeconds(10));
        assertThat(given.config().scheduler().retention().logs()).isEqualTo(Duration.ofDays(7));
        assertThat(none.config().scheduler().retention().runs()).isEqualTo(Duration.ofDays(90));
        assertThat(none.config().scheduler().retention().logs()).isEqualTo(Duration.ofDays(30));

        Cli.Result words = Cli.run("server", "--retention-runs", "90 days");
        assertThat(words.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(words.err()).contains("--retention-runs must be an ISO-8601 duration such as PT30S, was '90 days'");
        Cli.Result forever = Cli.run("server", "--retention-logs", "P5000D");
        assertThat(forever.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(forever.err()).contains("--retention-logs must be positive and at most P3650D, was P5000D");
    }

    @Test
    void server_refuses_a_request_size_limit_out_of_range_and_a_proxy_that_is_not_an_address() {
        Cli.Result small = Cli.run("server", "--max-request-size", "1000");
        Cli.Result word = Cli.run("server", "--max-request-size", "lots");
        Cli.Result proxy = Cli.run("server", "--trusted-proxy", "lb.internal");

        assertThat(small.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(small.err())
                .contains("--max-request-size must be between 262144 (256 KiB) and 67108864 (64 MiB) bytes, was 1000");
        assertThat(word.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(word.err()).contains("--max-request-size");
        assertThat(proxy.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(proxy.err()).contains("--trusted-proxy must be an IP address");
    }

    @Test
    void executor_needs_a_token_and_a_sane_concurrency() {
        Cli.Result noToken = Cli.run("executor", "--server", "http://127.0.0.1:9", "--token", "");
        assertThat(noToken.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(noToken.err()).contains("executor token is required");

        Cli.Result zero = Cli.run("executor", "--token", "t", "--concurrency", "0");
        assertThat(zero.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(zero.err()).contains("concurrency must be at least 1");
    }

    @Test
    void executor_exits_3_when_the_server_cannot_be_reached() throws Exception {
        int closedPort;
        try (var s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Cli.Result r = Cli.run("executor", "--server", "http://127.0.0.1:" + closedPort, "--token", "t", "--id", "e1");

        assertThat(r.exitCode()).as(r.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(r.err()).contains("cannot register executor e1");
    }

    @Test
    void tables_align_columns_and_show_absent_values_as_a_dash() {
        StringWriter sw = new StringWriter();
        Output.table(
                new PrintWriter(sw, true),
                List.of("NAME", "NEXT"),
                List.of(List.of("daily_report", "2026-11-29T18:00:00Z"), Arrays.asList("x", null)));

        assertThat(sw.toString().lines().toList())
                .containsExactly("NAME          NEXT", "daily_report  2026-11-29T18:00:00Z", "x             -");
    }
}
