package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code ax trigger NAME}: one manual run now, optionally waiting for its outcome. Each invocation sends one
 * idempotency key (a new UUID, or {@code --idempotency-key}); a request whose answer may have been lost is sent
 * again with that key ({@link ApiClient#postIdempotent}), so it never makes a second run.
 */
@Command(
        name = "trigger",
        mixinStandardHelpOptions = true,
        description = {
            "Run a task now (a manual run) and print its id.",
            "With --wait, follow the run until it ends: exit 0 on SUCCESS, 1 otherwise.",
            "The request carries an Idempotency-Key (a new UUID unless --idempotency-key gives one): when the server "
                    + "cannot be reached, the connection drops or the answer is 502/503/504, it is sent again with the same "
                    + "key (up to " + ApiClient.ATTEMPTS + " attempts), and the server makes at most one run for it."
        })
final class TriggerCommand extends NewRunCommand {
    @Parameters(paramLabel = "NAME", description = "The task name.")
    String name;

    @Option(
            names = {"-p", "--param"},
            paramLabel = "KEY=VALUE",
            description = "A parameter for the run ({{params.KEY}} in the command); repeatable.")
    Map<String, String> params = new LinkedHashMap<>();

    @Option(
            names = "--idempotency-key",
            paramLabel = "KEY",
            description =
                    "Use this key instead of a new one: the same key for the same task within the server's window "
                            + "(24 h by default) gives the run the first request made instead of a new one (1 to 200 printable ASCII "
                            + "characters). For a script that may run its ax trigger again.")
    String idempotencyKey;

    @Override
    protected int run(ApiClient api) {
        if (idempotencyKey != null && !idempotencyKey.matches("[\\x20-\\x7E]{1,200}")) {
            throw new ParameterException(
                    spec.commandLine(), "--idempotency-key must be 1 to 200 printable ASCII characters");
        }
        String key = idempotencyKey != null ? idempotencyKey : UUID.randomUUID().toString();
        AtomicInteger retries = new AtomicInteger();
        JsonNode answer;
        try {
            answer = api.postIdempotent(TaskCommand.path(name) + "/trigger", Map.of("params", params), key, reason -> {
                retries.incrementAndGet();
                err().println("retrying with the same Idempotency-Key " + key + " after " + reason);
                err().flush();
            });
        } catch (ApiClient.GaveUp e) {
            throw new CliException(
                    e.exitCode(),
                    e.getMessage() + "\nwhether a run was created is not known; sending the same key "
                            + "again is safe and makes at most one: ax trigger " + name + " --idempotency-key " + key,
                    e);
        }
        if (answer.path("duplicate").asBoolean()) {
            String id = Output.text(answer, "instanceId");
            err().println(
                            retries.get() > 0
                                    ? "run " + id
                                            + " was created by an earlier attempt whose answer was lost; no second run"
                                    : "run " + id + " was created by an earlier request with Idempotency-Key " + key
                                            + "; no new run");
        }
        return created(api, answer);
    }
}
