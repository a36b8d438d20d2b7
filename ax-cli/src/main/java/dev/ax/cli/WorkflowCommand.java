package dev.ax.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax workflow apply|list|trigger|runs|run|rerun|cancel|backfill}: graphs of tasks and their runs. */
@Command(
        name = "workflow",
        mixinStandardHelpOptions = true,
        description =
                "Workflows: tasks joined by edges into a graph with one trigger; runs with their node states; rerun from a node.",
        subcommands = {
            WorkflowCommand.Apply.class,
            WorkflowCommand.ListWorkflows.class,
            WorkflowCommand.Trigger.class,
            WorkflowCommand.Runs.class,
            WorkflowCommand.Run.class,
            WorkflowCommand.Rerun.class,
            WorkflowCommand.Cancel.class,
            WorkflowCommand.Backfill.class
        })
final class WorkflowCommand extends GroupCommand {

    static String path(String name) {
        return "/api/workflows/" + ApiClient.segment(name);
    }

    static String runPath(String id) {
        return "/api/workflow-runs/" + ApiClient.segment(id);
    }

    /** A run's header line and its node table: the graph with node states, as text. */
    static void printRun(ClientCommand c, JsonNode r) {
        c.out()
                .println("workflow run " + Output.text(r, "id") + " of " + Output.text(r, "workflow") + " v"
                        + Output.text(r, "version") + ": " + Output.text(r, "state") + " (" + Output.text(r, "cause")
                        + ", date " + Output.text(r, "date") + ")");
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode n : r.path("nodes")) {
            List<String> upstream = new ArrayList<>();
            n.path("upstream").forEach(u -> upstream.add(u.asText()));
            rows.add(List.of(
                    Output.text(n, "name"),
                    Output.text(n, "task"),
                    Output.text(n, "triggerRule"),
                    upstream.isEmpty() ? Output.NONE : String.join(",", upstream),
                    Output.text(n, "state"),
                    Output.text(n, "instanceId"),
                    Output.text(n, "attempts"),
                    Output.text(n, "reason")));
        }
        Output.table(c.out(), List.of("NODE", "TASK", "RULE", "AFTER", "STATE", "INSTANCE", "INSTANCES", "WHY"), rows);
    }

    @Command(
            name = "apply",
            mixinStandardHelpOptions = true,
            description = {
                "Create a workflow, or replace it if one of that name exists.",
                "JSON: {\"name\":…,\"trigger\":{…},\"nodes\":[{\"name\":…,\"task\":…,\"triggerRule\":\"allSuccess\"}],\"edges\":[{\"from\":…,\"to\":…}]}"
            })
    static final class Apply extends ClientCommand {
        @Option(
                names = {"-f", "--file"},
                required = true,
                paramLabel = "FILE",
                description = "The workflow definition (JSON); '-' reads stdin.")
        String file;

        @Override
        protected int run(ApiClient api) {
            JsonNode definition = read(api);
            String name =
                    definition.path("name").isTextual() ? definition.get("name").asText() : null;
            ApiClient.Applied applied = api.apply("/api/workflows", name == null ? null : path(name), definition);
            JsonNode view = applied.view();
            String verb = applied.verb();
            if (!printedJson(view)) {
                out().println(verb + " workflow " + Output.text(view, "name") + " v" + Output.text(view, "version")
                        + ", " + view.path("nodes").size() + " nodes, next fire " + Output.instant(view, "nextFireAt"));
            }
            return ExitCodes.OK;
        }

        private JsonNode read(ApiClient api) {
            String text;
            try {
                text = file.equals("-")
                        ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                        : Files.readString(existing(Path.of(file)), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new CliException(ExitCodes.USAGE, "cannot read " + file + ": " + e.getMessage());
            }
            try {
                JsonNode node = api.mapper().readTree(text);
                if (node == null || node.isMissingNode()) {
                    throw new CliException(
                            ExitCodes.REFUSED, file + " is empty: expected a workflow definition (JSON)");
                }
                return node;
            } catch (JsonProcessingException e) {
                throw new CliException(ExitCodes.REFUSED, file + " is not valid JSON: " + e.getOriginalMessage());
            }
        }

        private static Path existing(Path p) {
            if (!Files.isRegularFile(p)) {
                throw new CliException(ExitCodes.USAGE, "no such file: " + p.toAbsolutePath());
            }
            return p;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Workflows by name.")
    static final class ListWorkflows extends ClientCommand {
        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get("/api/workflows?limit=500");
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode w : page.path("items")) {
                rows.add(List.of(
                        Output.text(w, "name"),
                        Output.trigger(w.path("trigger")),
                        String.valueOf(w.path("nodes").size()),
                        Output.instant(w, "nextFireAt"),
                        Output.text(w, "version")));
            }
            Output.table(out(), List.of("NAME", "TRIGGER", "NODES", "NEXT FIRE", "VERSION"), rows);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "trigger",
            mixinStandardHelpOptions = true,
            description = "Run a workflow now; its first nodes start at once.")
    static final class Trigger extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The workflow name.")
        String name;

        @Option(
                names = {"-p", "--param"},
                paramLabel = "KEY=VALUE",
                description = "A parameter for every node's run; repeatable.")
        Map<String, String> params = new LinkedHashMap<>();

        @Override
        protected int run(ApiClient api) {
            JsonNode r = api.post(path(name) + "/trigger", Map.of("params", params));
            if (!printedJson(r)) {
                printRun(this, r);
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "runs", mixinStandardHelpOptions = true, description = "Workflow runs, newest first.")
    static final class Runs extends ClientCommand {
        @Parameters(paramLabel = "NAME", arity = "0..1", description = "Only this workflow's runs.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode page =
                    api.get(ApiClient.query("/api/workflow-runs", ApiClient.params("workflow", name, "limit", 100)));
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode r : page.path("items")) {
                rows.add(List.of(
                        Output.text(r, "id"),
                        Output.text(r, "workflow"),
                        Output.text(r, "state"),
                        Output.text(r, "cause"),
                        Output.instant(r, "scheduledAt"),
                        Output.instant(r, "finishedAt")));
            }
            Output.table(out(), List.of("ID", "WORKFLOW", "STATE", "CAUSE", "SCHEDULED", "FINISHED"), rows);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "run",
            mixinStandardHelpOptions = true,
            description = "A workflow run: every node with its state and run.")
    static final class Run extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The workflow run id.")
        String id;

        @Override
        protected int run(ApiClient api) {
            JsonNode r = api.get(runPath(id));
            if (!printedJson(r)) {
                printRun(this, r);
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "rerun",
            mixinStandardHelpOptions = true,
            description =
                    "Run a finished workflow run again from a node: it and its descendants run again, the others keep their outcome.")
    static final class Rerun extends ClientCommand {
        @Parameters(paramLabel = "RUN_ID", description = "The workflow run id.")
        String id;

        @Option(
                names = "--from",
                paramLabel = "NODE",
                description = "The node to rerun from (default: every failed node).")
        String from;

        @Override
        protected int run(ApiClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            if (from != null) {
                body.put("from", from);
            }
            JsonNode r = api.post(runPath(id) + "/rerun", body);
            if (!printedJson(r)) {
                printRun(this, r);
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description =
                    "Cancel a running workflow run: what has not run is skipped, waiting runs canceled, running ones terminated.")
    static final class Cancel extends ClientCommand {
        @Parameters(paramLabel = "RUN_ID", description = "The workflow run id.")
        String id;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why; recorded with the cancel.")
        String reason;

        @Override
        protected int run(ApiClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            if (reason != null) {
                body.put("reason", reason);
            }
            JsonNode r = api.post(runPath(id) + "/cancel", body);
            if (!printedJson(r)) {
                printRun(this, r);
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "backfill",
            mixinStandardHelpOptions = true,
            description =
                    "One workflow run per slot of its trigger in a date range; slots that have a run are skipped.")
    static final class Backfill extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The workflow name.")
        String name;

        @Option(
                names = "--from",
                required = true,
                paramLabel = "DATE",
                description = "First date, e.g. 2026-10-01 (the trigger's time zone).")
        String from;

        @Option(names = "--to", required = true, paramLabel = "DATE", description = "Last date, inclusive.")
        String to;

        @Option(
                names = "--parallelism",
                defaultValue = "1",
                paramLabel = "N",
                description = "Workflow runs at once (default 1).")
        int parallelism;

        @Option(names = "--dry-run", description = "List the slots; create nothing.")
        boolean dryRun;

        @Override
        protected int run(ApiClient api) {
            JsonNode r = api.post(
                    path(name) + "/backfill",
                    Map.of("from", from, "to", to, "parallelism", parallelism, "dryRun", dryRun));
            if (printedJson(r)) {
                return ExitCodes.OK;
            }
            r.path("plan")
                    .forEach(p -> out().println(Output.text(p, "date") + "  " + Output.text(p, "slot") + "  "
                            + Output.text(p, "action")
                            + (p.hasNonNull("existingRunId")
                                    ? "  (run " + Output.text(p, "existingRunId") + ")"
                                    : "")));
            out().println(
                            dryRun
                                    ? Output.text(r, "slots") + " slots; nothing created (dry run)"
                                    : "workflow backfill " + Output.text(r, "backfillId") + " started: "
                                            + Output.text(r, "slots") + " slots");
            return ExitCodes.OK;
        }
    }
}
