package dev.ax.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Stream;
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
    /**
     * The subcommands by name (and alias), in the order {@code ax --help} lists them. A command line holds only the
     * one called: picocli reads every command's annotations when it is added, and building all ~80 commands was a
     * quarter of a client command's run. {@code ax}, {@code ax help} and a name that is none of these get them all.
     */
    private static final Map<String, Supplier<Object>> SUBCOMMANDS = subcommands();

    private static Map<String, Supplier<Object>> subcommands() {
        Map<String, Supplier<Object>> m = new LinkedHashMap<>();
        m.put("server", ServerCommand::new);
        m.put("executor", ExecutorCommand::new);
        m.put("task", TaskCommand::new);
        m.put("trigger", TriggerCommand::new);
        Supplier<Object> run = RunCommand::new;
        m.put("run", run);
        m.put("instance", run);
        m.put("backfill", BackfillCommand::new);
        m.put("workflow", WorkflowCommand::new);
        m.put("secret", SecretCommand::new);
        m.put("token", TokenCommand::new);
        m.put("team", TeamCommand::new);
        m.put("audit", AuditCommand::new);
        m.put("cron", CronCommand::new);
        m.put("db", DbCommand::new);
        m.put("help", HelpCommand::new);
        return m;
    }

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
    public static CommandLine commandLine(Map<String, String> env, String[] args) {
        CommandLine cmd = new CommandLine(new Main());
        String called =
                Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse("");
        if (SUBCOMMANDS.containsKey(called) && !called.equals("help")) {
            cmd.addSubcommand(SUBCOMMANDS.get(called).get());
        } else {
            SUBCOMMANDS.values().stream().distinct().forEach(sub -> cmd.addSubcommand(sub.get()));
        }
        ConfigSources sources = ConfigSources.of(env, args);
        List<CommandLine> services = Stream.of("server", "executor")
                .map(cmd.getSubcommands()::get)
                .filter(Objects::nonNull)
                .toList();
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
