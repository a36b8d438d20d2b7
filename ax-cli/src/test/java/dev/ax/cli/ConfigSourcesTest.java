package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options of ax server and ax executor from a flag, the environment or --config FILE, in that order. */
class ConfigSourcesTest {
    @TempDir
    Path dir;

    Path conf(String text) throws Exception {
        Path f = dir.resolve("ax.conf");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void a_flag_wins_over_the_environment_which_wins_over_the_file_which_wins_over_the_default() throws Exception {
        Path f = conf("# a comment\nport = 7100\ndata-dir = /srv/ax\nretention-runs = P30D\nno-executor = true\n"
                + "locale = zh-CN\n");
        Cli.Result r = Cli.runWith(
                Map.of("AX_PORT", "7200", "AX_RETENTION_RUNS", "P60D"),
                "server",
                "--config",
                f.toString(),
                "--retention-runs",
                "P7D",
                "--print-config");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains("port = 7200    # environment AX_PORT")
                .contains("data-dir = /srv/ax    # config file")
                .contains("retention-runs = P7D    # command line")
                .contains("no-executor = true    # config file")
                .contains("locale = zh-CN    # config file")
                .contains("drain-timeout = PT30S    # default")
                .contains(f.toString());
    }

    @Test
    void the_file_may_come_from_AX_CONFIG_and_secrets_are_never_printed() throws Exception {
        Path f = conf("db-url = jdbc:postgresql://db:5432/ax?user=ax&password=hunter2&ssl=true\n"
                + "db-user = ax\ndb-password = s3cr3t-pw\n");
        Cli.Result r = Cli.runWith(Map.of("AX_CONFIG", f.toString()), "server", "--print-config");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        assertThat(r.out())
                .contains("db-url = jdbc:postgresql://db:5432/ax?user=ax&password=****&ssl=true    # config file")
                .contains("db-user = ax")
                .contains("db-password = ****")
                .doesNotContain("hunter2")
                .doesNotContain("s3cr3t-pw");

        Cli.Result executor = Cli.runWith(
                Map.of("AX_TOKEN", "axt_very-secret", "AX_SERVER", "http://a:7070,http://b:7070"),
                "executor",
                "--print-config");
        assertThat(executor.exitCode()).as(executor.toString()).isZero();
        assertThat(executor.out())
                .contains("server = http://a:7070,http://b:7070    # environment AX_SERVER")
                .contains("token = ****    # environment AX_TOKEN")
                .doesNotContain("very-secret");
    }

    @Test
    void an_invalid_value_fails_at_start_naming_the_option_and_where_it_came_from() throws Exception {
        Cli.Result fromEnv = Cli.runWith(Map.of("AX_PORT", "seventy"), "server", "--print-config");
        assertThat(fromEnv.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(fromEnv.err()).contains("--port").contains("seventy").contains("from AX_PORT");

        Path f = conf("executor-concurrency = many\n");
        Cli.Result fromFile = Cli.runWith(Map.of(), "server", "--config", f.toString(), "--print-config");
        assertThat(fromFile.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(fromFile.err()).contains("--executor-concurrency").contains("from executor-concurrency in " + f);
    }

    @Test
    void a_file_that_is_missing_or_names_an_option_that_does_not_exist_is_refused() throws Exception {
        Cli.Result missing = Cli.runWith(
                Map.of(), "server", "--config", dir.resolve("nope.conf").toString(), "--print-config");
        assertThat(missing.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(missing.err()).contains("nope.conf: no such file");

        Path f = conf("port = 7100\ndb_url = jdbc:postgresql://x/y\n");
        Cli.Result typo = Cli.runWith(Map.of(), "server", "--config=" + f, "--print-config");
        assertThat(typo.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(typo.err()).contains("no option db_url in ax server").contains("db-url");
    }
}
