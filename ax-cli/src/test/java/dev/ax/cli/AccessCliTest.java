package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ax token}, {@code ax team} and {@code ax audit} against a real server. */
class AccessCliTest {
    @RegisterExtension
    static final CliServer cli = new CliServer("cli-access");

    /** Runs ax with another token than the admin's. */
    static Cli.Result as(String token, String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--server=" + cli.server().url();
        all[args.length + 1] = "--token=" + token;
        return Cli.run(all);
    }

    @Test
    void a_token_is_printed_once_alone_listed_without_its_value_and_revoked_at_once() {
        assertThat(cli.ax("team", "create", "data", "--description", "the data team")
                        .out())
                .isEqualTo("created team data\n");
        Cli.Result made = cli.ax(
                "token", "create", "alice", "--role", "viewer", "--team", "data=operator", "--expires-in", "P90D");
        assertThat(made.exitCode()).as(made.toString()).isZero();
        String token = made.out().strip();
        assertThat(token).startsWith("axt_").doesNotContain(" ");
        assertThat(made.err())
                .contains("token alice made: viewer; operator in data")
                .contains("shown only now");

        Cli.Result list = cli.ax("token", "list");
        assertThat(list.out())
                .contains("alice")
                .contains("viewer; operator in data")
                .doesNotContain(token);
        // Alice's own list: her token and no one else's (the header and one row).
        assertThat(as(token, "token", "list").out().lines().toList())
                .hasSize(2)
                .last()
                .asString()
                .startsWith("alice ");

        assertThat(cli.ax("token", "revoke", "alice").out()).isEqualTo("revoked token alice\n");
        Cli.Result refused = as(token, "task", "list");
        assertThat(refused.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(refused.err()).contains("token 'alice' was revoked at").contains("by admin");
    }

    @Test
    void a_bad_team_role_is_a_usage_error_before_anything_is_sent() {
        Cli.Result r = cli.ax("token", "create", "bob", "--role", "viewer", "--team", "data");
        assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("--team takes TEAM=ROLE");
    }

    @Test
    void a_team_shows_its_tasks_and_members_and_the_audit_tells_who_did_what() {
        cli.ax("team", "create", "web");
        Path task = cli.file("site.json", """
                {"taskName":"site_build","team":"web","trigger":{"type":"event"},"action":{"type":"shell","command":"echo build"}}""");
        assertThat(cli.ax("task", "apply", "-f", task.toString()).exitCode()).isZero();
        String token = cli.ax("token", "create", "wendy", "--role", "viewer", "--team", "web=operator")
                .out()
                .strip();

        Cli.Result show = cli.ax("team", "show", "web");
        assertThat(show.out()).contains("site_build").contains("wendy (operator)");
        assertThat(as(token, "trigger", "site_build").exitCode()).isZero();
        Cli.Result refused = as(token, "task", "pause", "global_thing");
        assertThat(refused.exitCode()).isNotZero();

        Cli.Result audit = cli.ax("audit", "--actor", "wendy");
        assertThat(audit.exitCode()).as(audit.toString()).isZero();
        assertThat(audit.out())
                .contains("ACTION")
                .contains("task.trigger")
                .contains("task:site_build")
                .contains("web");
        assertThat(cli.ax("audit", "--target", "team:web").out()).contains("team.create");
        Cli.Result rm = cli.ax("team", "rm", "web");
        assertThat(rm.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(rm.err()).contains("task site_build").contains("token wendy");
    }
}
