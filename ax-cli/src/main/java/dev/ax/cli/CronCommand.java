package dev.ax.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax cron next}: check an expression against the server's own cron rules before putting it in a task. */
@Command(
        name = "cron",
        mixinStandardHelpOptions = true,
        description = "Check cron expressions.",
        subcommands = CronCommand.Next.class)
final class CronCommand extends GroupCommand {

    @Command(
            name = "next",
            mixinStandardHelpOptions = true,
            description = {
                "Print the next fire times of a cron expression.",
                "The server computes them with the scheduler's own parser and DST rules; each line shows the "
                        + "instant, then the local time in the expression's zone."
            })
    static final class Next extends ClientCommand {
        static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm:ss xxx", Locale.ROOT);
        static final String DEFAULT_ZONE = "UTC";

        @Parameters(
                paramLabel = "EXPR",
                arity = "1..*",
                description = "The cron expression, quoted ('0 2 * * *'); 5 fields, 6 with seconds, or @daily etc.")
        List<String> expression;

        @Option(
                names = "--tz",
                paramLabel = "ZONE",
                description = "The time zone of the expression (default: UTC), e.g. Asia/Shanghai.")
        String zone;

        @Option(
                names = {"-n", "--count"},
                paramLabel = "N",
                defaultValue = "5",
                description = "How many fire times (default: ${DEFAULT-VALUE}).")
        int count;

        @Option(
                names = "--after",
                paramLabel = "INSTANT",
                description = "Start after this instant (ISO-8601, e.g. 2026-03-08T00:00:00Z; default: now).")
        String after;

        @Override
        protected int run(ApiClient api) {
            JsonNode answer = api.get(ApiClient.query(
                    "/api/cron/next",
                    ApiClient.params(
                            "expression",
                            String.join(" ", expression),
                            "timezone",
                            zone,
                            "after",
                            after,
                            "count",
                            count)));
            if (printedJson(answer)) {
                return ExitCodes.OK;
            }
            ZoneId display = displayZone(answer);
            for (JsonNode next : answer.path("next")) {
                out().println(line(next.asText(), display));
            }
            return ExitCodes.OK;
        }

        /** The zone the server evaluated the expression in: its answer's, else the one asked for, else UTC. */
        private ZoneId displayZone(JsonNode answer) {
            String id = answer.hasNonNull("timezone")
                    ? answer.get("timezone").asText()
                    : zone == null ? DEFAULT_ZONE : zone;
            try {
                return ZoneId.of(id);
            } catch (DateTimeException e) {
                return null;
            }
        }

        static String line(String instant, ZoneId zone) {
            if (zone == null) {
                return instant;
            }
            try {
                return instant + "  " + LOCAL.format(Instant.parse(instant).atZone(zone)) + " " + zone.getId();
            } catch (DateTimeException e) {
                return instant;
            }
        }
    }
}
