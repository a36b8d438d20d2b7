package dev.ax.cli;

import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

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
            DbCommand.class,
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
        System.exit(commandLine(System.getenv(), args).execute(args));
    }

    /**
     * The ax command line for {@code args}: {@code ax server} and {@code ax executor} take options
     * not given as flags from the environment {@code env}, then from {@code --config FILE}
     * ({@link ConfigSources}).
     */
    static CommandLine commandLine(Map<String, String> env, String[] args) {
        CommandLine cmd = new CommandLine(new Main());
        ConfigSources sources = ConfigSources.of(env, args);
        List<CommandLine> services =
                List.of(cmd.getSubcommands().get("server"), cmd.getSubcommands().get("executor"));
        services.forEach(sub -> sub.setDefaultValueProvider(sources));
        // A bad value names the option (picocli) and, when it was no flag, where it came from.
        IParameterExceptionHandler plain = cmd.getParameterExceptionHandler();
        cmd.setParameterExceptionHandler((e, rest) -> {
            if (e.getArgSpec() == null || !services.contains(e.getCommandLine())) {
                return plain.handleParseException(e, rest);
            }
            String from = sources.whereFrom(e.getCommandLine().getCommandSpec(), e.getArgSpec());
            return plain.handleParseException(
                    new ParameterException(e.getCommandLine(), e.getMessage() + from, e, e.getArgSpec(), e.getValue()),
                    rest);
        });
        return cmd;
    }
}
