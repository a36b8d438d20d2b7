package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Base of every command that talks to the REST API. Turns the client's exceptions into the message on stderr and
 * the exit code, in one place, so that it works however the command line is built (tests build it bare).
 */
abstract class ClientCommand implements Callable<Integer> {
    @Mixin
    ClientOptions client;

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        try {
            return run(client.connect());
        } catch (ApiException e) {
            if (client.json() && !e.body().isBlank()) {
                out().println(e.body());
            }
            Output.error(err(), e);
            return e.exitCode();
        } catch (CliException e) {
            err().println(e.getMessage());
            return e.exitCode();
        } finally {
            out().flush();
            err().flush();
        }
    }

    /** Does the work; returns the exit code. Errors are thrown as {@link CliException}s. */
    protected abstract int run(ApiClient api);

    protected PrintWriter out() {
        return spec.commandLine().getOut();
    }

    protected PrintWriter err() {
        return spec.commandLine().getErr();
    }

    protected boolean json() {
        return client.json();
    }

    /** With --json prints the answer and returns true: the caller is done. */
    protected boolean printedJson(JsonNode answer) {
        if (!client.json()) {
            return false;
        }
        Output.json(out(), answer);
        return true;
    }
}
