package dev.ax.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax trigger NAME}: one manual run now, optionally waiting for its outcome. */
@Command(name = "trigger", mixinStandardHelpOptions = true,
        description = {"Run a task now (a manual instance) and print the instance id.",
                "With --wait, follow the instance until it ends: exit 0 on SUCCESS, 1 otherwise."})
final class TriggerCommand extends NewRunCommand {
    @Parameters(paramLabel = "NAME", description = "The task name.")
    String name;

    @Option(names = {"-p", "--param"}, paramLabel = "KEY=VALUE",
            description = "A parameter for the run ({{params.KEY}} in the command); repeatable.")
    Map<String, String> params = new LinkedHashMap<>();

    @Override
    protected int run(ApiClient api) {
        return created(api, api.post(TaskCommand.path(name) + "/trigger", Map.of("params", params)));
    }
}
