package dev.ax.cli;

import dev.ax.executor.ExecutorAgent;
import dev.ax.executor.ExecutorChannel.ChannelException;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.Hosts;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.executor.TlsTrust;
import dev.ax.executor.shell.ShellRunner;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ax executor}: a process that pulls runs of some groups from a server and executes them. */
@Command(
        name = "executor",
        mixinStandardHelpOptions = true,
        description = {
            "Start an executor process that runs the work of some groups.",
            "It polls the server for runs of its groups, runs them, streams their output and reports how they "
                    + "ended, until stopped (Ctrl-C, SIGTERM). It needs no inbound port and no database access."
        })
final class ExecutorCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOptions configOptions = new ConfigOptions();

    @Option(
            names = "--server",
            paramLabel = "URL",
            defaultValue = "${env:AX_SERVER:-" + ClientOptions.DEFAULT_SERVER + "}",
            description =
                    "The AX server, or the nodes of a cluster comma-separated (http://ax1:7070,http://ax2:7070): when the "
                            + "node in use stops answering, the executor goes on with the next, keeping its runs (default: $AX_SERVER, else "
                            + ClientOptions.DEFAULT_SERVER + ").")
    String server;

    @Option(
            names = "--token",
            paramLabel = "TOKEN",
            defaultValue = "${env:AX_TOKEN}",
            description = {
                "The executor's token (default: $AX_TOKEN): one of role executor, made with",
                "ax token create NAME --role executor [--group G ...]; one limited to groups may serve only those",
                "(and is refused everywhere but the executor protocol)."
            })
    String token;

    @Option(
            names = "--ca",
            paramLabel = "FILE",
            defaultValue = "${env:AX_CA}",
            description = "For an https:// server: the CA certificate(s) (PEM) that signed its certificate, trusted "
                    + "instead of the system's CAs (default: $AX_CA; without either, the system's CAs).")
    Path ca;

    @Option(
            names = {"-g", "--group"},
            paramLabel = "GROUP",
            defaultValue = "default",
            description = "An executor group whose runs this executor takes; repeatable (default: ${DEFAULT-VALUE}).")
    List<String> groups;

    @Option(
            names = {"-l", "--label"},
            paramLabel = "LABEL",
            description =
                    "An environment label of this executor (e.g. prod); repeatable. A task whose \"environment\" "
                            + "lists labels runs only on executors carrying all of them; tasks without one run anywhere in their group.")
    List<String> labels = new ArrayList<>();

    @Option(
            names = "--id",
            paramLabel = "NAME",
            description =
                    "This executor's name. Give one that stays the same across restarts: a restarted executor then has the "
                            + "runs its earlier life held declared lost at once, and what of them still runs killed (default: the host "
                            + "name and the process id, unique for each process but new at each start).")
    String id;

    @Option(
            names = "--concurrency",
            paramLabel = "N",
            defaultValue = "" + ExecutorConfig.DEFAULT_CONCURRENCY,
            description = "Runs executed at the same time (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(
            names = "--kill-grace",
            paramLabel = "SECONDS",
            defaultValue = "5",
            description =
                    "Seconds between SIGTERM and SIGKILL when a run is stopped or times out (default: ${DEFAULT-VALUE}).")
    long killGraceSeconds;

    @Option(
            names = "--drain-timeout",
            paramLabel = "DURATION",
            defaultValue = "PT30S",
            description = "On SIGTERM, how long to let the runs going on end before stopping; runs still going then are"
                    + " left to their leases and retried by the server (ISO-8601; default: ${DEFAULT-VALUE}).")
    String drainTimeout;

    @Override
    public Integer call() {
        if (configOptions.printedOrChecked(spec)) {
            return ExitCodes.OK;
        }
        if (token == null || token.isBlank()) {
            throw new ParameterException(spec.commandLine(), "an executor token is required: --token or AX_TOKEN");
        }
        List<URI> servers = new ArrayList<>();
        for (String one : server.split(",")) {
            try {
                URI uri = URI.create(one.strip());
                if (uri.getHost() == null) {
                    throw new IllegalArgumentException("no host");
                }
                servers.add(uri);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--server must be a URL like " + ClientOptions.DEFAULT_SERVER
                                + " (or several, comma-separated), was '" + server + "'");
            }
        }
        Duration drain = DurationOption.notNegative(spec.commandLine(), "--drain-timeout", drainTimeout);
        String uri = String.join(", ", servers.stream().map(URI::toString).toList());
        ExecutorConfig config;
        try {
            config = new ExecutorConfig(
                    id != null ? id : defaultId(),
                    groups,
                    concurrency,
                    ExecutorConfig.DEFAULT_POLL_WAIT_MILLIS,
                    Duration.ofSeconds(killGraceSeconds),
                    Version.get(),
                    labels);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        HttpExecutorChannel channel = new HttpExecutorChannel(servers, token.strip(), ClientOptions.trust(spec, ca));
        ExecutorAgent agent = new ExecutorAgent(config, channel, new ShellRunner(config.killGrace()));
        try {
            agent.start();
        } catch (ChannelException e) {
            channel.close();
            spec.commandLine()
                    .getErr()
                    .println("cannot register executor " + config.executorId() + " with " + uri + ": " + e.getMessage()
                            + (TlsTrust.isHandshakeFailure(e) ? " (--ca FILE or AX_CA names the CA to trust)" : ""));
            // An I/O cause means no answer at all; without one the server answered and said no (a refused token).
            return e.getCause() instanceof IOException ? ExitCodes.UNREACHABLE : ExitCodes.REFUSED;
        }
        spec.commandLine()
                .getOut()
                .println("executor " + config.executorId() + " serving groups "
                        + String.join(", ", config.groups()) + " from " + uri + " (concurrency " + config.concurrency()
                        + ")"
                        + (config.labels().isEmpty() ? "" : " with labels " + String.join(", ", config.labels())));
        spec.commandLine().getOut().flush();
        Shutdown.awaitSignal("executor", () -> {
            agent.drain(drain);
            agent.close();
            channel.close();
        });
        return ExitCodes.OK;
    }

    /**
     * The host name and this process's id: two executors on one host must not share a name (each would take the
     * other's runs for lost ones), and without --id nothing says which earlier process this one replaces.
     */
    static String defaultId() {
        return Hosts.name() + "-" + ProcessHandle.current().pid();
    }
}
