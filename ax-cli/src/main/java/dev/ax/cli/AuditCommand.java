package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ax audit}: who did what, when, from where, and how it ended. */
@Command(
        name = "audit",
        mixinStandardHelpOptions = true,
        description = {
            "The audit log, newest first: every change, trigger, approval, log-in and refused attempt, with its",
            "actor, team, address, target and outcome (admin; a team's admin with --team for that team)."
        })
final class AuditCommand extends ClientCommand {
    @Option(names = "--actor", paramLabel = "NAME", description = "Only this actor's entries.")
    String actor;

    @Option(names = "--team", paramLabel = "TEAM", description = "Only this team's entries.")
    String team;

    @Option(
            names = "--target",
            paramLabel = "TARGET",
            description = "A target (task:nightly, run:42) or a kind of target (task:).")
    String target;

    @Option(names = "--from", paramLabel = "TIME", description = "At or after this instant or date (UTC).")
    String from;

    @Option(names = "--to", paramLabel = "TIME", description = "Before this instant or date (UTC).")
    String to;

    @Option(names = "--limit", paramLabel = "N", description = "At most N entries (default 100).")
    Integer limit;

    @Override
    protected int run(ApiClient api) {
        JsonNode page = api.get(ApiClient.query(
                "/api/audit",
                ApiClient.params(
                        "actor", actor, "team", team, "target", target, "from", from, "to", to, "limit", limit)));
        if (printedJson(page)) {
            return ExitCodes.OK;
        }
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode e : GroupCommand.items(page)) {
            String outcome = Output.text(e, "outcome")
                    + ("ok".equals(e.path("outcome").asText())
                            ? ""
                            : " " + e.path("status").asInt());
            rows.add(List.of(
                    Output.instant(e, "at"),
                    Output.text(e, "actor"),
                    Output.text(e, "team"),
                    Output.text(e, "address"),
                    Output.text(e, "action"),
                    Output.text(e, "target"),
                    outcome,
                    Output.text(e, "message")));
        }
        Output.table(out(), List.of("AT", "ACTOR", "TEAM", "FROM", "ACTION", "TARGET", "OUTCOME", "MESSAGE"), rows);
        if (!page.path("next").isNull() && !page.path("next").isMissingNode()) {
            err().println("(older entries: narrow with --to or --from)");
        }
        return ExitCodes.OK;
    }
}
