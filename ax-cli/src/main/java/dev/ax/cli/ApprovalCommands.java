package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax run approval|approve|reject ID}: a run's approval request and the decision on it. */
final class ApprovalCommands {
    private ApprovalCommands() {}

    @Command(
            name = "approval",
            mixinStandardHelpOptions = true,
            description = "Show a run's approval request: who may decide, the deadline and the preview's output.")
    static final class Show extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @Override
        protected int run(ApiClient api) {
            JsonNode a = api.get(RunCommand.path(id) + "/approval");
            if (!printedJson(a)) {
                out().println("run " + Output.text(a, "instanceId") + " (" + Output.text(a, "taskName") + "): "
                        + Output.text(a, "state"));
                out().println("approvers:   "
                        + (a.path("approvers").isEmpty()
                                ? "any operator or admin"
                                : a.path("approvers").toString()));
                out().println("four eyes:   " + Output.text(a, "fourEyes"));
                out().println("deadline:    " + Output.text(a, "deadline"));
                out().println("asked by:    " + Output.text(a, "requestedBy"));
                if (a.hasNonNull("previewInstanceId")) {
                    out().println("preview:     run " + Output.text(a, "previewInstanceId") + " "
                            + Output.text(a, "previewState"));
                    a.path("previewOutput").forEach(line -> out().println("  | " + line.asText()));
                }
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "request-approval",
            mixinStandardHelpOptions = true,
            description = {
                "From inside a running job: ask a person to confirm before going on.",
                "With --wait, block until decided: exit 0 when approved, 1 when rejected or expired.",
                "Example in a shell task: ax run request-approval $AX_INSTANCE_ID --summary \"$(wc -l < rows.csv) rows\" --wait || exit 1"
            })
    static final class Request extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id (in a job: $AX_INSTANCE_ID).")
        String id;

        @Option(names = "--summary", paramLabel = "TEXT", description = "What the person is asked to confirm.")
        String summary;

        @Option(names = "--wait", description = "Wait for the decision.")
        boolean waitForDecision;

        @Option(
                names = "--poll-seconds",
                paramLabel = "S",
                defaultValue = "2",
                description = "How often to look while waiting.")
        int pollSeconds;

        @Override
        protected int run(ApiClient api) {
            JsonNode r = api.post(
                    RunCommand.path(id) + "/approval-request", summary == null ? null : Map.of("summary", summary));
            if (!waitForDecision) {
                if (!printedJson(r)) {
                    out().println("run " + Output.text(r, "instanceId") + " " + Output.text(r, "state"));
                }
                return ExitCodes.OK;
            }
            while (true) {
                String state = Output.text(api.get(RunCommand.path(id)), "state");
                if (!"WAITING_APPROVAL".equals(state)) {
                    out().println("run " + id + " " + state);
                    return "RUNNING".equals(state) ? ExitCodes.OK : ExitCodes.REFUSED;
                }
                try {
                    Thread.sleep(Math.max(1, pollSeconds) * 1000L);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return ExitCodes.REFUSED;
                }
            }
        }
    }

    abstract static class Decide extends ClientCommand {
        @Parameters(paramLabel = "ID", description = "The run's id.")
        String id;

        @Option(names = "--comment", paramLabel = "TEXT", description = "Why; recorded in the run's events.")
        String comment;

        abstract String verb();

        @Override
        protected int run(ApiClient api) {
            JsonNode r =
                    api.post(RunCommand.path(id) + "/" + verb(), comment == null ? null : Map.of("comment", comment));
            if (!printedJson(r)) {
                out().println("run " + Output.text(r, "instanceId") + " " + Output.text(r, "state"));
            }
            return ExitCodes.OK;
        }
    }

    @Command(
            name = "approve",
            mixinStandardHelpOptions = true,
            description = "Approve a run waiting for approval; it starts. Only the task's approvers may.")
    static final class Approve extends Decide {
        @Override
        String verb() {
            return "approve";
        }
    }

    @Command(
            name = "reject",
            mixinStandardHelpOptions = true,
            description = "Reject a run waiting for approval; it is canceled. Only the task's approvers may.")
    static final class Reject extends Decide {
        @Override
        String verb() {
            return "reject";
        }
    }
}
