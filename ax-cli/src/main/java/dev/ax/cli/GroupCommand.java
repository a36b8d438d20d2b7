package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only groups subcommands ({@code ax task}, {@code ax run}): run bare, it prints its usage to
 * stderr and exits 2, because a missing subcommand is a usage error. Also holds the list helpers they share.
 */
abstract class GroupCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.USAGE;
    }

    /** A list answer is {@code {"items":[...],"next":...}}; a bare array is accepted too. */
    static JsonNode items(JsonNode answer) {
        return answer.isArray() ? answer : answer.path("items");
    }

    /** Tells on stderr (so stdout stays a clean table) how to get the next page, when there is one. */
    static void moreHint(PrintWriter err, JsonNode page) {
        JsonNode next = page.path("next");
        if (next.isValueNode() && !next.isNull() && !next.asText().isEmpty()) {
            err.println("more: repeat the command with --cursor " + next.asText());
        }
    }
}
