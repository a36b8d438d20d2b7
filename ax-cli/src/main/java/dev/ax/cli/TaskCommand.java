package dev.ax.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax task ...}: create, inspect and change tasks. */
@Command(
        name = "task",
        mixinStandardHelpOptions = true,
        description = "Create, list, show, pause, resume and delete tasks.",
        subcommands = {
            TaskCommand.Apply.class,
            TaskCommand.ListTasks.class,
            TaskCommand.Show.class,
            TaskCommand.Pause.class,
            TaskCommand.Resume.class,
            TaskCommand.Delete.class,
            TaskCommand.Versions.class,
            TaskCommand.Events.class,
            StagedTaskCommands.TestRun.class,
            StagedTaskCommands.Canary.class,
            StagedTaskCommands.Promote.class,
            StagedTaskCommands.Rollback.class
        })
final class TaskCommand extends GroupCommand {

    static String path(String name) {
        return "/api/tasks/" + ApiClient.segment(name);
    }

    /** "next fire ..." for a task view, in words a person reads at a glance. */
    static String nextFire(JsonNode view) {
        if (view.path("paused").asBoolean(false)) {
            return "paused";
        }
        if (view.hasNonNull("nextFireAt")) {
            return "next fire " + Output.instant(view, "nextFireAt");
        }
        if ("event".equals(view.path("definition").path("trigger").path("type").asText())) {
            return "fires only when triggered";
        }
        return "no next fire";
    }

    /** The API names it "name"; the definition and older drafts of the API say "taskName". */
    static String name(JsonNode view) {
        return Output.text(view, "taskName");
    }

    static String state(JsonNode view) {
        return view.path("paused").asBoolean(false) ? "paused" : "active";
    }

    @Command(
            name = "apply",
            mixinStandardHelpOptions = true,
            description = "Create a task from its JSON definition, or update it (a new version) if it exists.")
    static final class Apply extends ClientCommand {
        @Option(
                names = {"-f", "--file"},
                required = true,
                paramLabel = "FILE",
                description = "The task definition (JSON: taskName, trigger, action, policy); '-' reads stdin.")
        String file;

        @Override
        protected int run(ApiClient api) {
            JsonNode definition = read(api);
            String name = definition.path("taskName").isTextual()
                    ? definition.get("taskName").asText()
                    : null;
            ApiClient.Applied applied = api.apply("/api/tasks", name == null ? null : path(name), definition);
            JsonNode view = applied.view();
            String verb = applied.verb();
            for (JsonNode w : view.path("warnings")) {
                err().println("warning: " + warning(w));
            }
            if (printedJson(view)) {
                return ExitCodes.OK;
            }
            out().println(verb + " " + name(view) + " v" + Output.text(view, "version") + ", " + nextFire(view));
            return ExitCodes.OK;
        }

        private JsonNode read(ApiClient api) {
            String text;
            try {
                if (file.equals("-")) {
                    InputStream in = System.in;
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } else {
                    Path p = Path.of(file);
                    if (!Files.isRegularFile(p)) {
                        throw new CliException(ExitCodes.USAGE, "no such file: " + p.toAbsolutePath());
                    }
                    text = Files.readString(p, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                throw new CliException(ExitCodes.USAGE, "cannot read " + file + ": " + e.getMessage());
            }
            try {
                JsonNode node = api.mapper().readTree(text);
                if (node == null || node.isMissingNode()) {
                    throw new CliException(ExitCodes.REFUSED, file + " is empty: expected a task definition (JSON)");
                }
                return node;
            } catch (JsonProcessingException e) {
                var where = e.getLocation();
                throw new CliException(
                        ExitCodes.REFUSED,
                        file + " is not valid JSON"
                                + (where == null
                                        ? ""
                                        : " (line " + where.getLineNr() + ", column " + where.getColumnNr() + ")")
                                + ": " + e.getOriginalMessage());
            }
        }

        /** A warning may come as text or as {field, reason|message}. */
        private static String warning(JsonNode w) {
            if (!w.isObject()) {
                return w.asText();
            }
            String text = w.hasNonNull("reason")
                    ? w.get("reason").asText()
                    : w.path("message").asText(w.toString());
            return w.hasNonNull("field") ? w.get("field").asText() + ": " + text : text;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List tasks, by name.")
    static final class ListTasks extends ClientCommand {
        @Option(names = "--search", paramLabel = "TEXT", description = "Only tasks whose name contains TEXT.")
        String search;

        @Option(
                names = "--limit",
                paramLabel = "N",
                description = "At most N tasks (the server's default when absent).")
        Integer limit;

        @Option(names = "--cursor", paramLabel = "CURSOR", description = "Continue a previous listing.")
        String cursor;

        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get(ApiClient.query(
                    "/api/tasks", ApiClient.params("search", search, "limit", limit, "cursor", cursor)));
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode t : GroupCommand.items(page)) {
                rows.add(List.of(
                        name(t),
                        Output.text(t, "version"),
                        state(t),
                        Output.trigger(t.path("definition").path("trigger")),
                        Output.instant(t, "nextFireAt")));
            }
            Output.table(out(), List.of("NAME", "VERSION", "STATE", "TRIGGER", "NEXT FIRE"), rows);
            GroupCommand.moreHint(err(), page);
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show one task and its definition.")
    static final class Show extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode t = api.get(path(name));
            if (printedJson(t)) {
                return ExitCodes.OK;
            }
            JsonNode def = t.path("definition");
            Output.fields(
                    out(),
                    List.of(
                            new String[] {"name", name(t)},
                            new String[] {"version", Output.text(t, "version")},
                            new String[] {"state", state(t)},
                            new String[] {"trigger", Output.trigger(def.path("trigger"))},
                            new String[] {"action", action(def.path("action"))},
                            new String[] {"next fire", Output.instant(t, "nextFireAt")},
                            new String[] {"created", Output.instant(t, "createdAt")},
                            new String[] {"updated", Output.instant(t, "updatedAt")},
                            new String[] {"overlap skipped", Output.text(t.path("counters"), "overlapSkipped")},
                            new String[] {"queue dropped", Output.text(t.path("counters"), "queueDropped")},
                            new String[] {"missed, caught up", Output.text(t.path("counters"), "missedCaughtUp")},
                            new String[] {"missed, not run", Output.text(t.path("counters"), "missedSlotEvents")}));
            out().println("definition:");
            Output.json(out(), def);
            return ExitCodes.OK;
        }

        private static String action(JsonNode action) {
            String type = action.path("type").asText("?");
            return switch (type) {
                case "shell" -> "shell: " + action.path("command").asText();
                case "http" ->
                    "http: " + action.path("method").asText("GET") + " "
                            + action.path("url").asText();
                default -> type;
            };
        }
    }

    @Command(
            name = "pause",
            mixinStandardHelpOptions = true,
            description = "Stop firing a task on its schedule (running runs go on).")
    static final class Pause extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode t = api.post(path(name) + "/pause", null);
            if (!printedJson(t)) {
                out().println("paused " + name);
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            description = "Fire a paused task on its schedule again.")
    static final class Resume extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode t = api.post(path(name) + "/resume", null);
            if (!printedJson(t)) {
                out().println("resumed " + name + (t.isObject() ? ", " + nextFire(t) : ""));
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "delete",
            mixinStandardHelpOptions = true,
            description = "Delete a task (its versions and past runs stay in the audit log).")
    static final class Delete extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode answer = api.delete(path(name));
            if (!printedJson(answer)) {
                out().println("deleted " + name);
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "versions",
            mixinStandardHelpOptions = true,
            description = "A task's audit log: every change, who made it, when, and what changed.")
    static final class Versions extends ClientCommand {
        private static final int MAX_PATHS = 4;

        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get(path(name) + "/versions");
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode v : GroupCommand.items(page)) {
                String at = v.has("at") ? Output.instant(v, "at") : Output.instant(v, "createdAt");
                String change = Output.text(v, "change");
                rows.add(List.of(
                        Output.text(v, "version"),
                        change,
                        Output.text(v, "actor"),
                        at,
                        change.equals("CREATE") ? Output.NONE : diff(v.path("diff"))));
            }
            Output.table(out(), List.of("VERSION", "CHANGE", "ACTOR", "AT", "CHANGED"), rows);
            return ExitCodes.OK;
        }

        /** The changed paths, a few of them: the full diff is in --json. */
        private static String diff(JsonNode diff) {
            List<String> paths = new ArrayList<>();
            for (JsonNode d : diff) {
                String p = d.isObject() ? d.path("path").asText(d.path("field").asText("")) : d.asText();
                if (!p.isEmpty()) {
                    paths.add(p);
                }
            }
            if (paths.isEmpty()) {
                return Output.NONE;
            }
            String shown = String.join(", ", paths.subList(0, Math.min(MAX_PATHS, paths.size())));
            return paths.size() > MAX_PATHS ? shown + " (+" + (paths.size() - MAX_PATHS) + ")" : shown;
        }
    }

    @Command(
            name = "events",
            mixinStandardHelpOptions = true,
            description =
                    "A task's timeline, newest first: edits, pauses, missed slots, runs someone triggered, and what its runs did"
                            + " beyond the routine (failed, retried, skipped, canceled, alerted). A run's whole story: ax run events ID.")
    static final class Events extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Option(
                names = "--limit",
                paramLabel = "N",
                description = "At most N events (the server's default when absent).")
        Integer limit;

        @Option(names = "--cursor", paramLabel = "CURSOR", description = "Continue a previous listing.")
        String cursor;

        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get(
                    ApiClient.query(path(name) + "/events", ApiClient.params("limit", limit, "cursor", cursor)));
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            RunCommand.eventsTable(out(), page, true);
            GroupCommand.moreHint(err(), page);
            return ExitCodes.OK;
        }
    }
}
