package dev.ax.cli;

import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --config FILE} and {@code --print-config}, for the commands that run a service ({@link ConfigSources}). */
final class ConfigOptions {
    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Options from a properties file, keyed by the option's name without '--' (db-url = jdbc:…)."
                    + " A flag wins over the environment (AX_DB_URL for --db-url), the environment over the file"
                    + " (default: $AX_CONFIG).")
    Path config;

    @Option(
            names = "--print-config",
            description = "Print every option's value and where it came from (secrets masked), then exit.")
    boolean printConfig;

    /**
     * Checks the configuration of {@code command} (throws a usage error naming what is wrong);
     * true when it was printed and the command should end there.
     */
    boolean printedOrChecked(CommandSpec command) {
        if (!(command.defaultValueProvider() instanceof ConfigSources sources)) {
            return false; // built without Main.commandLine (a test of the command alone): no sources to check
        }
        sources.check(command);
        if (printConfig) {
            sources.print(command, command.commandLine().getOut());
            return true;
        }
        return false;
    }
}
