package dev.ax.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax task test-run|canary|promote|rollback}: changes tried before they are made, or made a share at a time. */
final class StagedTaskCommands {
    private StagedTaskCommands() {}

    /** A task definition from a file, or stdin for '-'. */
    static JsonNode readDefinition(ApiClient api, String file) {
        String text;
        try {
            text = file.equals("-")
                    ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                    : read(Path.of(file));
        } catch (IOException e) {
            throw new CliException(ExitCodes.USAGE, "cannot read " + file + ": " + e.getMessage());
        }
        try {
            JsonNode node = api.mapper().readTree(text);
            if (node == null || node.isMissingNode() || !node.path("taskName").isTextual()) {
                throw new CliException(ExitCodes.REFUSED, file + ": expected a task definition (JSON with a taskName)");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new CliException(ExitCodes.REFUSED, file + " is not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static String read(Path p) throws IOException {
        if (!Files.isRegularFile(p)) {
            throw new CliException(ExitCodes.USAGE, "no such file: " + p.toAbsolutePath());
        }
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    @Command(
            name = "test-run",
            mixinStandardHelpOptions = true,
            description = {
                "Run a draft definition once, now, as a test, without saving it (the task may not exist yet).",
                "The run is marked as a test: no follow-ups, no alerts. With --wait, the exit code says how it ended."
            })
    static final class TestRun extends NewRunCommand {
        @Option(
                names = {"-f", "--file"},
                required = true,
                paramLabel = "FILE",
                description = "The draft definition (JSON); '-' reads stdin.")
        String file;

        @Override
        protected int run(ApiClient api) {
            JsonNode draft = readDefinition(api, file);
            JsonNode answer = api.post(TaskCommand.path(draft.get("taskName").asText()) + "/test-run", draft);
            for (JsonNode w : answer.path("warnings")) {
                err().println("warning: " + w.asText());
            }
            return created(api, answer);
        }
    }

    @Command(
            name = "canary",
            mixinStandardHelpOptions = true,
            description = {
                "Roll out a changed definition to a share of new runs; the current version stays stable.",
                "Runs are routed by fire key (a slot always maps to one version). The canary is rolled back by itself when",
                "its failure rate exceeds the stable one's by --margin points after --min-runs runs.",
                "Then: ax task promote NAME, or ax task rollback NAME."
            })
    static final class Canary extends ClientCommand {
        @Option(
                names = {"-f", "--file"},
                required = true,
                paramLabel = "FILE",
                description = "The new definition (JSON); '-' reads stdin.")
        String file;

        @Option(names = "--percent", paramLabel = "N", description = "Share of new runs for the canary, 1..99.")
        Integer percent;

        @Option(
                names = "--runs",
                paramLabel = "N",
                description = "Instead of a share: the next N new runs go to the canary.")
        Integer runs;

        @Option(
                names = "--margin",
                paramLabel = "POINTS",
                description = "Automatic rollback margin in percentage points (default 20).")
        Integer margin;

        @Option(
                names = "--min-runs",
                paramLabel = "N",
                description = "Canary runs that must end before it is judged (default 3).")
        Integer minRuns;

        @Override
        protected int run(ApiClient api) {
            JsonNode definition = readDefinition(api, file);
            String name = definition.get("taskName").asText();
            JsonNode view = api.put(
                    ApiClient.query(
                            TaskCommand.path(name),
                            ApiClient.params(
                                    "rollout", "canary", "percent", percent, "runs", runs, "margin", margin, "minRuns",
                                    minRuns)),
                    definition);
            if (printedJson(view)) {
                return ExitCodes.OK;
            }
            JsonNode c = view.path("canary");
            out().println("canary " + name + " v" + Output.text(c, "canaryVersion") + " gets "
                    + (c.hasNonNull("percent")
                            ? Output.text(c, "percent") + " %"
                            : "the next " + Output.text(c, "runs") + " runs")
                    + " of new runs; v" + Output.text(c, "stableVersion") + " stays stable");
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "promote",
            mixinStandardHelpOptions = true,
            description = "Make a task's canary its current version.")
    static final class Promote extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode t = api.post(TaskCommand.path(name) + "/canary/promote", null);
            if (!printedJson(t)) {
                out().println("promoted the canary of " + name + ": now v" + Output.text(t, "version"));
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "rollback",
            mixinStandardHelpOptions = true,
            description =
                    "Drop a task's canary: new runs use the stable version; its runs not started yet are canceled.")
    static final class Rollback extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Override
        protected int run(ApiClient api) {
            JsonNode t = api.post(TaskCommand.path(name) + "/canary/rollback", null);
            if (!printedJson(t)) {
                out().println("rolled back the canary of " + name + ": new runs use v" + Output.text(t, "version"));
            }
            return ExitCodes.OK;
        }
    }
}
