package dev.ax.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** An option given as an ISO-8601 duration, refused with the option's name. */
final class DurationOption {
    private DurationOption() {}

    static Duration parse(CommandLine cli, String option, String text) {
        try {
            return Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw new ParameterException(
                    cli, option + " must be an ISO-8601 duration such as PT30S, was '" + text + "'");
        }
    }

    /** As {@link #parse}, and zero or more. */
    static Duration notNegative(CommandLine cli, String option, String text) {
        Duration d = parse(cli, option, text);
        if (d.isNegative()) {
            throw new ParameterException(cli, option + " must be zero or more, was " + text);
        }
        return d;
    }
}
