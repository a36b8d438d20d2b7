package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax backfill start|show|pause|resume|cancel}: run a task over a date range, and follow it. */
@Command(
        name = "backfill",
        mixinStandardHelpOptions = true,
        description =
                "Run a task for every slot of a date range (one run per business date for a daily task), and follow it.",
        subcommands = {
            BackfillCommand.Start.class,
            BackfillCommand.Show.class,
            BackfillCommand.Pause.class,
            BackfillCommand.Resume.class,
            BackfillCommand.Cancel.class
        })
final class BackfillCommand extends GroupCommand {

    static String path(String id) {
        return "/api/backfills/" + id;
    }

    static void print(ClientCommand c, JsonNode b) {
        c.out()
                .println("backfill " + Output.text(b, "id") + " of " + Output.text(b, "taskName") + ": "
                        + Output.text(b, "state")
                        + ", " + Output.text(b, "done") + " done, " + Output.text(b, "failed") + " failed, "
                        + Output.text(b, "pending")
                        + " pending of " + Output.text(b, "slots") + " slots; runs by state " + b.path("runs"));
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description = {
                "Start a backfill (or --dry-run to list the slots and what would happen to each).",
                "Slots that already have a run are skipped unless --reprocess failed|all."
            })
    static final class Start extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "The task name.")
        String name;

        @Option(
                names = "--from",
                required = true,
                paramLabel = "DATE",
                description = "First date, e.g. 2026-10-01 (task's time zone).")
        String from;

        @Option(names = "--to", required = true, paramLabel = "DATE", description = "Last date, inclusive.")
        String to;

        @Option(
                names = "--parallelism",
                defaultValue = "1",
                paramLabel = "N",
                description = "Runs at once (default 1).")
        int parallelism;

        @Option(
                names = "--reprocess",
                defaultValue = "none",
                paramLabel = "none|failed|all",
                description = "Slots that already ran.")
        String reprocess;

        @Option(
                names = "--order",
                defaultValue = "oldest",
                paramLabel = "oldest|newest",
                description = "Which end first.")
        String order;

        @Option(
                names = {"-p", "--param"},
                paramLabel = "KEY=VALUE",
                description = "A parameter for every run; repeatable.")
        Map<String, String> params = new LinkedHashMap<>();

        @Option(names = "--dry-run", description = "List the slots; create nothing.")
        boolean dryRun;

        @Option(
                names = "--cascade",
                description = "Also backfill the tasks that depend on this one (dependsOn), same dates.")
        boolean cascade;

        @Override
        protected int run(ApiClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("from", from);
            body.put("to", to);
            body.put("parallelism", parallelism);
            body.put("reprocess", reprocess);
            body.put("order", order);
            body.put("params", params);
            body.put("dryRun", dryRun);
            if (cascade) {
                body.put("cascade", true);
            }
            JsonNode r = api.post(TaskCommand.path(name) + "/backfill", body);
            if (printedJson(r)) {
                return ExitCodes.OK;
            }
            printStarted(r);
            r.path("cascaded").forEach(c -> {
                out().println("cascade: " + Output.text(c, "taskName"));
                printStarted(c);
            });
            return ExitCodes.OK;
        }

        private void printStarted(JsonNode r) {
            if (dryRun) {
                r.path("plan")
                        .forEach(p -> out().println(Output.text(p, "slot") + "  " + Output.text(p, "action")
                                + (p.hasNonNull("existingInstanceId")
                                        ? "  (run " + Output.text(p, "existingInstanceId") + " "
                                                + Output.text(p, "existingState") + ")"
                                        : "")));
                out().println(Output.text(r, "slots") + " slots; nothing created (dry run)");
            } else {
                out().println("backfill " + Output.text(r, "backfillId") + " started: " + Output.text(r, "slots")
                        + " slots");
            }
        }
    }

    abstract static class OnOne extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The backfill id.")
        String id;

        abstract String verb();

        @Override
        protected int run(ApiClient api) {
            JsonNode b = verb() == null ? api.get(path(id)) : api.post(path(id) + "/" + verb(), null);
            if (!printedJson(b)) {
                print(this, b);
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "A backfill's progress.")
    static final class Show extends OnOne {
        @Override
        String verb() {
            return null;
        }
    }

    @Command(
            name = "pause",
            mixinStandardHelpOptions = true,
            description = "Pause a backfill: no new runs until resumed.")
    static final class Pause extends OnOne {
        @Override
        String verb() {
            return "pause";
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resume a paused backfill.")
    static final class Resume extends OnOne {
        @Override
        String verb() {
            return "resume";
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description = "Cancel a backfill and its runs that have not started.")
    static final class Cancel extends OnOne {
        @Override
        String verb() {
            return "cancel";
        }
    }
}
