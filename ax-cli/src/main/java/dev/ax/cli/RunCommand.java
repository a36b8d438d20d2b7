package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.domain.run.RunState;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax run ...} (also {@code ax instance ...}, as in earlier versions): the runs, their events and their logs. */
@Command(
        name = "run",
        aliases = "instance",
        mixinStandardHelpOptions = true,
        description =
                "List runs, show one, its events and its log; terminate, cancel, retry or re-run one; approve or reject one.",
        subcommands = {
            RunCommand.ListRuns.class,
            RunCommand.Show.class,
            RunCommand.Events.class,
            RunCommand.Log.class,
            RunControlCommands.Terminate.class,
            RunControlCommands.Cancel.class,
            RunControlCommands.Retry.class,
            RunControlCommands.Rerun.class,
            ApprovalCommands.Show.class,
            ApprovalCommands.Approve.class,
            ApprovalCommands.Reject.class,
            ApprovalCommands.Request.class
        })
final class RunCommand extends GroupCommand {

    static String path(String id) {
        return "/api/runs/" + ApiClient.segment(id);
    }

    /** The run's state, if this client knows its name (a newer server may add states). */
    static Optional<RunState> state(JsonNode instance) {
        try {
            return Optional.of(RunState.valueOf(instance.path("state").asText()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Polls the run until it is in a terminal state; {@code null} if {@code timeoutSeconds} (0 = no limit) passed
     * first. Polling, not a stream: it is one request per half second for one person's terminal.
     */
    static JsonNode await(ApiClient api, String id, long timeoutSeconds, Duration every) {
        long deadline = timeoutSeconds <= 0
                ? Long.MAX_VALUE
                : System.nanoTime() + Duration.ofSeconds(timeoutSeconds).toNanos();
        while (true) {
            JsonNode instance = api.get(path(id));
            if (state(instance).map(RunState::isTerminal).orElse(false)) {
                return instance;
            }
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            try {
                Thread.sleep(every);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CliException(ExitCodes.REFUSED, "interrupted while waiting for run " + id);
            }
        }
    }

    /** One line on how a run ended: {@code run 42 FAILED after 3 attempts (exit 2, NONZERO_EXIT: ...)}. */
    static String outcome(JsonNode i) {
        StringBuilder sb = new StringBuilder("run ")
                .append(Output.text(i, "id"))
                .append(' ')
                .append(Output.text(i, "state"));
        List<String> details = new ArrayList<>();
        if (i.hasNonNull("exitCode")) {
            details.add("exit " + i.get("exitCode").asText());
        }
        if (i.hasNonNull("failureKind")) {
            details.add(i.get("failureKind").asText());
        }
        // A success's message only repeats its exit code; a failure's says why.
        boolean success = state(i).map(RunState::isSuccessful).orElse(false);
        if (!success && i.hasNonNull("message") && !i.get("message").asText().isBlank()) {
            details.add(i.get("message").asText());
        }
        String took = duration(i);
        if (!took.equals(Output.NONE)) {
            details.add(took);
        }
        if (!details.isEmpty()) {
            sb.append(" (").append(String.join(", ", details)).append(')');
        }
        return sb.toString();
    }

    /** Run time of the last attempt, as "1.2 s" or "3 min 4 s"; {@value Output#NONE} until it finished. */
    static String duration(JsonNode i) {
        try {
            if (!i.hasNonNull("startedAt") || !i.hasNonNull("finishedAt")) {
                return Output.NONE;
            }
            Duration d = Duration.between(
                    Instant.parse(i.get("startedAt").asText()),
                    Instant.parse(i.get("finishedAt").asText()));
            if (d.toSeconds() < 60) {
                return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
            }
            return d.toMinutes() + " min " + d.toSecondsPart() + " s";
        } catch (DateTimeParseException e) {
            return Output.NONE;
        }
    }

    /** Events as a table; {@code withRun} adds the run column (a task's events span its runs). */
    static void eventsTable(PrintWriter out, JsonNode page, boolean withRun) {
        List<List<String>> rows = new ArrayList<>();
        for (JsonNode e : items(page)) {
            String move = !e.hasNonNull("to")
                    ? Output.NONE
                    : (e.hasNonNull("from") ? e.get("from").asText() + " " : "") + "-> "
                            + e.get("to").asText();
            String who = e.hasNonNull("actor") ? Output.text(e, "actor") : Output.text(e, "nodeId");
            List<String> row = new ArrayList<>(List.of(
                    Output.instant(e, "at", ChronoUnit.MILLIS),
                    Output.text(e, "type"),
                    move,
                    Output.text(e, "attempt"),
                    who,
                    Output.text(e, "message")));
            if (withRun) {
                row.add(1, Output.text(e, "instanceId"));
            }
            rows.add(row);
        }
        List<String> headers = new ArrayList<>(List.of("AT", "EVENT", "STATE", "ATTEMPT", "BY", "MESSAGE"));
        if (withRun) {
            headers.add(1, "INSTANCE");
        }
        Output.table(out, headers, rows);
    }

    static String attempt(JsonNode i) {
        return Output.text(i, "attempt") + "/" + Output.text(i, "maxAttempts");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List runs, newest first.")
    static final class ListRuns extends ClientCommand {
        @Option(names = "--task", paramLabel = "NAME", description = "Only runs of this task.")
        String task;

        @Option(
                names = "--state",
                paramLabel = "STATE",
                description = "Only runs in this state (e.g. RUNNING, FAILED).")
        String state;

        @Option(names = "--limit", paramLabel = "N", description = "At most N runs (the server's default when absent).")
        Integer limit;

        @Option(names = "--cursor", paramLabel = "CURSOR", description = "Continue a previous listing.")
        String cursor;

        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get(ApiClient.query(
                    "/api/runs",
                    ApiClient.params(
                            "task",
                            task,
                            "state",
                            state == null ? null : state.toUpperCase(Locale.ROOT),
                            "limit",
                            limit,
                            "cursor",
                            cursor)));
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode i : items(page)) {
                rows.add(List.of(
                        Output.text(i, "id"),
                        Output.text(i, "taskName"),
                        Output.text(i, "cause"),
                        Output.text(i, "state"),
                        attempt(i),
                        Output.instant(i, "scheduledAt"),
                        Output.instant(i, "startedAt"),
                        duration(i),
                        Output.text(i, "exitCode")));
            }
            Output.table(
                    out(),
                    List.of("ID", "TASK", "CAUSE", "STATE", "ATTEMPT", "SCHEDULED", "STARTED", "TOOK", "EXIT"),
                    rows);
            moreHint(err(), page);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "Show one run: why it was created, where it ran, how it ended.")
    static final class Show extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @Override
        protected int run(ApiClient api) {
            JsonNode i = api.get(path(id));
            if (printedJson(i)) {
                return ExitCodes.OK;
            }
            JsonNode chain = i.path("triggerChain");
            Output.fields(
                    out(),
                    List.of(
                            new String[] {"id", Output.text(i, "id")},
                            new String[] {"task", Output.text(i, "taskName")},
                            new String[] {"state", Output.text(i, "state")},
                            new String[] {"waiting for", Output.text(i, "waitingReason")},
                            new String[] {"cause", Output.text(i, "cause")},
                            new String[] {"fire key", Output.text(i, "fireKey")},
                            new String[] {
                                "trigger chain",
                                chain.isMissingNode() || chain.isNull() || chain.isEmpty()
                                        ? Output.NONE
                                        : chain.toString()
                            },
                            new String[] {"scheduled", Output.instant(i, "scheduledAt")},
                            new String[] {"attempt", attempt(i)},
                            new String[] {"executor", Output.text(i, "executorId")},
                            new String[] {"pid", Output.text(i, "pid")},
                            new String[] {"exit code", Output.text(i, "exitCode")},
                            new String[] {"failure", Output.text(i, "failureKind")},
                            new String[] {"message", Output.text(i, "message")},
                            new String[] {"request id", Output.text(i, "requestId")},
                            new String[] {"created", Output.instant(i, "createdAt")},
                            new String[] {"started", Output.instant(i, "startedAt")},
                            new String[] {"finished", Output.instant(i, "finishedAt")},
                            new String[] {"took", duration(i)}));
            JsonNode waitingFor = i.path("waitingFor");
            if (waitingFor.isArray() && !waitingFor.isEmpty()) {
                out().println("dependencies:");
                waitingFor.forEach(w -> out().println("  " + (w.path("met").asBoolean() ? "met      " : "waiting  ")
                        + w.path("text").asText()));
            }
            JsonNode shards = i.path("shards");
            if (shards.isArray() && !shards.isEmpty()) {
                out().println();
                List<List<String>> rows = new ArrayList<>();
                for (JsonNode s : shards) {
                    rows.add(List.of(
                            Output.text(s, "index") + "/" + Output.text(s, "total"),
                            Output.text(s, "state"),
                            Output.text(s, "attempt"),
                            Output.text(s, "executor"),
                            Output.text(s, "pid"),
                            Output.text(s, "exitCode"),
                            Output.instant(s, "startedAt"),
                            Output.instant(s, "finishedAt"),
                            Output.text(s, "message")));
                }
                Output.table(
                        out(),
                        List.of(
                                "SHARD",
                                "STATE",
                                "ATTEMPT",
                                "EXECUTOR",
                                "PID",
                                "EXIT",
                                "STARTED",
                                "FINISHED",
                                "MESSAGE"),
                        rows);
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "events",
            mixinStandardHelpOptions = true,
            description = "Every transition and decision of one run, oldest first.")
    static final class Events extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @Override
        protected int run(ApiClient api) {
            JsonNode page = api.get(path(id) + "/events");
            if (printedJson(page)) {
                return ExitCodes.OK;
            }
            // Its "next" is a follow position (always set), not a sign of more pages: no hint.
            eventsTable(out(), page, false);
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "log",
            mixinStandardHelpOptions = true,
            description = "Print the output (stdout and stderr) of a run.")
    static final class Log extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @picocli.CommandLine.Option(
                names = "--shard",
                paramLabel = "N",
                description = "Only this shard's output (a sharded run).")
        Integer shard;

        @Override
        protected int run(ApiClient api) {
            String only = shard == null ? "" : "shard=" + shard;
            if (json()) {
                Output.json(out(), api.get(path(id) + "/log" + (only.isEmpty() ? "" : "?" + only)));
                return ExitCodes.OK;
            }
            String text = api.getText(path(id) + "/log?format=text" + (only.isEmpty() ? "" : "&" + only));
            out().print(text);
            if (!text.isEmpty() && !text.endsWith("\n")) {
                out().println();
            }
            return ExitCodes.OK;
        }
    }
}
