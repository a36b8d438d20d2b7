package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ax run terminate|cancel|retry|rerun ID}: what an operator does to a run. The server decides whether the
 * run's state allows it and, when not, says what to do instead (exit 1 with that message).
 */
final class RunControlCommands {
    private RunControlCommands() {}

    private static Map<String, String> reasonBody(String reason) {
        return reason == null ? null : Map.of("reason", reason);
    }

    @Command(
            name = "terminate",
            mixinStandardHelpOptions = true,
            description = {
                "Stop a RUNNING run; its executor kills the process tree within seconds.",
                "The run is TERMINATED at once. A run that has not started is canceled instead."
            })
    static final class Terminate extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why; recorded in the run's events.")
        String reason;

        @Override
        protected int run(ApiClient api) {
            JsonNode i = api.post(RunCommand.path(id) + "/terminate", reasonBody(reason));
            if (!printedJson(i)) {
                out().println("run " + Output.text(i, "id") + " " + Output.text(i, "state")
                        + "; its executor kills the process within seconds");
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description = {
                "Withdraw a run that has not started or waits to retry.",
                "For READY, BLOCKED, WAITING_APPROVAL and RETRYING runs; a RUNNING run is terminated instead."
            })
    static final class Cancel extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @Option(names = "--reason", paramLabel = "TEXT", description = "Why; recorded in the run's events.")
        String reason;

        @Override
        protected int run(ApiClient api) {
            JsonNode i = api.post(RunCommand.path(id) + "/cancel", reasonBody(reason));
            if (!printedJson(i)) {
                out().println("run " + Output.text(i, "id") + " " + Output.text(i, "state"));
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "retry",
            mixinStandardHelpOptions = true,
            description = {
                "Run a failed, terminated or canceled run again, as it was.",
                "A new run with the same task version and parameters, chained to the old one; prints its id.",
                "With --wait, follow it until it ends: exit 0 on SUCCESS, 1 otherwise."
            })
    static final class Retry extends NewRunCommand {
        @Parameters(paramLabel = "ID", description = "The id of the run to retry.")
        String id;

        @Override
        protected int run(ApiClient api) {
            return created(api, api.post(RunCommand.path(id) + "/retry", null));
        }
    }

    @Command(
            name = "rerun",
            mixinStandardHelpOptions = true,
            description = {
                "Run a finished run again with the task's current version.",
                "A new run with the same parameters, chained to the old one; prints its id.",
                "With --wait, follow it until it ends: exit 0 on SUCCESS, 1 otherwise."
            })
    static final class Rerun extends NewRunCommand {
        @Parameters(paramLabel = "ID", description = "The id of the run to re-run.")
        String id;

        @Override
        protected int run(ApiClient api) {
            return created(api, api.post(RunCommand.path(id) + "/rerun", null));
        }
    }
}
