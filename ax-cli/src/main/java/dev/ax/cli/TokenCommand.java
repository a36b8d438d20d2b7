package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax token create|list|revoke} and {@code ax whoami}: tokens for people and machines. */
@Command(
        name = "token",
        mixinStandardHelpOptions = true,
        description = {
            "Tokens for people and machines: a role everywhere, higher roles inside teams, and for an executor the",
            "groups it may serve. Made by an admin and shown once; listed without their values; revoked at once."
        },
        subcommands = {TokenCommand.Create.class, TokenCommand.ListTokens.class, TokenCommand.Revoke.class})
final class TokenCommand extends GroupCommand {
    @Command(
            name = "create",
            mixinStandardHelpOptions = true,
            description = {
                "Make a token (admin). Prints the token once, alone on standard output, so that it can be piped:",
                "  ax token create alice --role viewer --team data=operator --expires-in P90D",
                "  ax token create exec-orders --role executor --group orders > exec-orders.token"
            })
    static final class Create extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The token's name: what lists show and what is revoked.")
        String name;

        @Option(
                names = "--role",
                required = true,
                paramLabel = "ROLE",
                description = "viewer, operator, admin or executor: its role everywhere.")
        String role;

        @Option(
                names = "--team",
                paramLabel = "TEAM=ROLE",
                description = "A higher role inside a team, e.g. data=operator (repeatable).")
        List<String> teams = new ArrayList<>();

        @Option(
                names = "--group",
                paramLabel = "GROUP",
                description = "For an executor's token: a group it may serve (repeatable); none = every group.")
        List<String> groups = new ArrayList<>();

        @Option(
                names = "--owner",
                paramLabel = "PERSON",
                description = "The person it acts for, recorded as the actor (default: NAME).")
        String owner;

        @Option(
                names = "--expires-in",
                paramLabel = "DURATION",
                description = "ISO-8601, e.g. P90D or PT12H; none = until revoked.")
        String expiresIn;

        @Override
        protected int run(ApiClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            body.put("role", role);
            if (owner != null) {
                body.put("owner", owner);
            }
            if (!teams.isEmpty()) {
                Map<String, String> roles = new LinkedHashMap<>();
                for (String t : teams) {
                    int eq = t.indexOf('=');
                    if (eq <= 0 || eq == t.length() - 1) {
                        throw new CliException(
                                ExitCodes.USAGE, "--team takes TEAM=ROLE, e.g. data=operator; got '" + t + "'");
                    }
                    roles.put(t.substring(0, eq), t.substring(eq + 1));
                }
                body.put("teams", roles);
            }
            if (!groups.isEmpty()) {
                body.put("groups", groups);
            }
            if (expiresIn != null) {
                body.put("expiresIn", expiresIn);
            }
            JsonNode made = api.post("/api/tokens", body);
            if (printedJson(made)) {
                return ExitCodes.OK;
            }
            // The token alone on standard output (for a pipe or a file); what it is, on standard error.
            out().println(Output.text(made, "token"));
            err().println("token " + name + " made: " + describe(made.path("info")) + "; it is shown only now");
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Tokens by name, never their values: every token for an admin, your own for everyone else.")
    static final class ListTokens extends ClientCommand {
        @Option(
                names = "--owner",
                paramLabel = "PERSON",
                description = "Only this person's tokens (an admin; others may name only themselves).")
        String owner;

        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get(ApiClient.query("/api/tokens", ApiClient.params("owner", owner)));
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode t : items(page)) {
                rows.add(List.of(
                        Output.text(t, "name"),
                        Output.text(t, "owner"),
                        describe(t),
                        Output.text(t, "createdBy"),
                        Output.instant(t, "createdAt"),
                        t.path("expired").asBoolean()
                                ? "EXPIRED " + Output.instant(t, "expiresAt")
                                : Output.instant(t, "expiresAt"),
                        Output.instant(t, "lastUsedAt")));
            }
            Output.table(out(), List.of("NAME", "OWNER", "ROLES", "BY", "CREATED", "EXPIRES", "LAST USED"), rows);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "revoke",
            aliases = "rm",
            mixinStandardHelpOptions = true,
            description =
                    "Revoke a token at once (an admin any, everyone their own): the next request with it is refused.")
    static final class Revoke extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The token's name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            api.delete("/api/tokens/" + ApiClient.segment(name));
            out().println("revoked token " + name);
            return ExitCodes.OK;
        }
    }

    /** "viewer; operator in data" or "executor for orders, billing". */
    static String describe(JsonNode t) {
        StringBuilder s = new StringBuilder(Output.text(t, "role"));
        List<String> groups = new ArrayList<>();
        t.path("groups").forEach(g -> groups.add(g.asText()));
        if (!groups.isEmpty()) {
            s.append(" for ").append(String.join(", ", groups));
        }
        List<String> teams = new ArrayList<>();
        t.path("teams").properties().forEach(e -> teams.add(e.getValue().asText() + " in " + e.getKey()));
        if (!teams.isEmpty()) {
            s.append("; ").append(String.join(", ", teams));
        }
        return s.toString();
    }
}
