package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.domain.run.InstanceState;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax trigger NAME}: one manual run now, optionally waiting for its outcome. */
@Command(name = "trigger", mixinStandardHelpOptions = true,
        description = {"Run a task now (a manual instance) and print the instance id.",
                "With --wait, follow the instance until it ends: exit 0 on SUCCESS, 1 otherwise."})
final class TriggerCommand extends ClientCommand {
    static final Duration POLL_EVERY = Duration.ofMillis(500);

    @Parameters(paramLabel = "NAME", description = "The task name.")
    String name;

    @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE",
            description = "A parameter for the run ({{params.KEY}} in the command); repeatable.")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(names = "--wait", description = "Wait until the instance ends; the exit code says how it ended.")
    boolean await;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "With --wait: give up after this many seconds (exit 1; the run goes on). 0 = wait forever.")
    long timeoutSeconds;

    @Override
    protected int run(ApiClient api) {
        JsonNode answer = api.post(TaskCommand.path(name) + "/trigger", Map.of("params", params));
        String id = Output.text(answer, "instanceId");
        if (!await) {
            if (!printedJson(answer)) {
                out().println(id);
            }
            return ExitCodes.OK;
        }
        if (!json()) {
            out().println(id);
            out().flush();
        }
        JsonNode instance = InstanceCommand.await(api, id, timeoutSeconds, POLL_EVERY);
        if (instance == null) {
            err().println("instance " + id + " did not end within " + timeoutSeconds + " s (it goes on; see `ax instance show "
                    + id + "`)");
            return ExitCodes.REFUSED;
        }
        if (!printedJson(instance)) {
            out().println(InstanceCommand.outcome(instance));
        }
        return succeeded(instance) ? ExitCodes.OK : ExitCodes.REFUSED;
    }

    private static boolean succeeded(JsonNode instance) {
        return InstanceCommand.state(instance).map(InstanceState::isSuccessful).orElse(false);
    }
}
