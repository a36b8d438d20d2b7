package dev.ax.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * The {@code ax} command. Exit codes, for every subcommand: 0 done; 1 the server said no (or the awaited run did not
 * succeed); 2 usage error; 3 the server could not be reached. See {@link ExitCodes}.
 */
@Command(
        name = "ax",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description =
                "AX, a self-hosted job scheduler: every run fires when it should, once, tracked, retried and explained.",
        subcommands = {
            ServerCommand.class,
            ExecutorCommand.class,
            TaskCommand.class,
            TriggerCommand.class,
            RunCommand.class,
            BackfillCommand.class,
            WorkflowCommand.class,
            SecretCommand.class,
            TokenCommand.class,
            TeamCommand.class,
            AuditCommand.class,
            CronCommand.class,
            HelpCommand.class
        },
        footerHeading = "%nExit codes:%n",
        footer = {
            "  0  done",
            "  1  the server refused the request, or the awaited run did not succeed",
            "  2  usage error",
            "  3  the server could not be reached",
            "%nClient commands take --server from AX_SERVER (default http://127.0.0.1:7070)",
            "and --token from AX_TOKEN, else from the file ./ax-data/admin.token;",
            "for an https:// server, --ca (the CA to trust) from AX_CA."
        })
public final class Main extends GroupCommand {
    /** Logging for the ax command; a -Dlogback.configurationFile given by the user wins. */
    static final String LOGBACK_CONFIG = "dev/ax/cli/logback-cli.xml";

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", LOGBACK_CONFIG);
        }
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
