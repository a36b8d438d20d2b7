package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.domain.run.RunState;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * A command that creates a run ({@code ax trigger}, {@code ax run retry|rerun}): prints the new run id and,
 * with {@code --wait}, follows it until it ends; exit 0 on SUCCESS, 1 otherwise.
 */
abstract class NewRunCommand extends ClientCommand {
    static final Duration POLL_EVERY = Duration.ofMillis(500);

    @Option(names = "--wait", description = "Wait until the run ends; the exit code says how it ended.")
    boolean await;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            defaultValue = "0",
            description = "With --wait: give up after this many seconds (exit 1; the run goes on). 0 = wait forever.")
    long timeoutSeconds;

    /** {@code answer} is the server's {@code {"instanceId":...}}; returns the exit code. */
    protected int created(ApiClient api, JsonNode answer) {
        String id = Output.text(answer, "instanceId");
        if (!await) {
            if (!printedJson(answer)) {
                out().println(id);
            }
            return ExitCodes.OK;
        }
        if (!json()) {
            // The id first, at once: a person (or script) waiting minutes knows which run to look at.
            out().println(id);
            out().flush();
        }
        JsonNode instance = RunCommand.await(api, id, timeoutSeconds, POLL_EVERY);
        if (instance == null) {
            err().println("run " + id + " did not end within " + timeoutSeconds + " s (it goes on; see `ax run show "
                    + id + "`)");
            return ExitCodes.REFUSED;
        }
        if (!printedJson(instance)) {
            out().println(RunCommand.outcome(instance));
        }
        return RunCommand.state(instance).map(RunState::isSuccessful).orElse(false) ? ExitCodes.OK : ExitCodes.REFUSED;
    }
}
