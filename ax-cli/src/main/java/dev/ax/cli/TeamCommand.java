package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax team create|list|show|rm}: the teams tasks and workflows belong to. */
@Command(
        name = "team",
        mixinStandardHelpOptions = true,
        description = {
            "Teams: a task or workflow with \"team\": \"data\" is data's; a token's team roles count there.",
            "Only an admin creates and deletes teams."
        },
        subcommands = {
            TeamCommand.Create.class,
            TeamCommand.ListTeams.class,
            TeamCommand.Show.class,
            TeamCommand.Remove.class
        })
final class TeamCommand extends GroupCommand {
    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a team (admin).")
    static final class Create extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The team's name: letters, digits, '_', '.' and '-'.")
        String name;

        @Option(names = "--description", paramLabel = "TEXT", description = "What the team is.")
        String description;

        @Override
        protected int run(ApiClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", name);
            if (description != null) {
                body.put("description", description);
            }
            JsonNode team = api.post("/api/teams", body);
            if (!printedJson(team)) {
                out().println("created team " + Output.text(team, "name"));
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Teams by name.")
    static final class ListTeams extends ClientCommand {
        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get("/api/teams");
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode t : items(page)) {
                rows.add(List.of(
                        Output.text(t, "name"),
                        Output.text(t, "description"),
                        Output.instant(t, "createdAt"),
                        Output.text(t, "createdBy")));
            }
            Output.table(out(), List.of("NAME", "DESCRIPTION", "CREATED", "BY"), rows);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "A team: its tasks, workflows and the tokens with a role in it.")
    static final class Show extends ClientCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode t = api.get("/api/teams/" + ApiClient.segment(name));
            if (printedJson(t)) {
                return ExitCodes.OK;
            }
            List<String> members = new ArrayList<>();
            t.path("members")
                    .properties()
                    .forEach(e -> members.add(e.getKey() + " (" + e.getValue().asText() + ")"));
            Output.fields(
                    out(),
                    List.of(
                            new String[] {"team", Output.text(t, "name")},
                            new String[] {"description", Output.text(t, "description")},
                            new String[] {"tasks", join(t.path("tasks"))},
                            new String[] {"workflows", join(t.path("workflows"))},
                            new String[] {"members", members.isEmpty() ? "-" : String.join(", ", members)}));
            return ExitCodes.OK;
        }

        private static String join(JsonNode names) {
            List<String> out = new ArrayList<>();
            names.forEach(n -> out.add(n.asText()));
            return out.isEmpty() ? "-" : String.join(", ", out);
        }
    }

    @Command(
            name = "rm",
            aliases = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete a team (admin); refused while a task, workflow or token still refers to it.")
    static final class Remove extends ClientCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Override
        protected int run(ApiClient api) {
            api.delete("/api/teams/" + ApiClient.segment(name));
            out().println("deleted team " + name);
            return ExitCodes.OK;
        }
    }
}
