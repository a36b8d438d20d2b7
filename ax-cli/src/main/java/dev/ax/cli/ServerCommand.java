package dev.ax.cli;

import dev.ax.api.HttpOptions;
import dev.ax.api.TlsIdentity;
import dev.ax.domain.task.RunRetention;
import dev.ax.scheduler.HistoryRetention;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.server.AxServer;
import dev.ax.server.ServerConfig;
import dev.ax.store.DbConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code ax server}: one server node, by default on an embedded H2 file with an in-process executor. */
@Command(
        name = "server",
        mixinStandardHelpOptions = true,
        description = {
            "Start a server node (API, scheduler, in-process executor).",
            "It runs until stopped (Ctrl-C, SIGTERM). Without --db-url it keeps everything in an embedded database "
                    + "under --data-dir (one node only); with a PostgreSQL, MariaDB or MySQL --db-url, any number of nodes"
                    + " share the work.",
            "Secrets are sealed with AX_SECRET_KEY (base64 of 32 bytes, the same on every node; AX_SECRET_KEY_PREVIOUS after"
                    + " a rotation), else with the key file secret.key in --data-dir, made on the first start."
        })
final class ServerCommand implements Callable<Integer> {
    /** The databases several nodes may share (MariaDB's driver takes MySQL's URLs too); H2 is the embedded one. */
    static final List<String> DB_URL_PREFIXES = List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:");

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOptions configOptions = new ConfigOptions();

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "" + ServerConfig.DEFAULT_PORT,
            description = "HTTP port for the API and the executors (0 = any free port; default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            defaultValue = "ax-data",
            description = "Where the embedded database and the admin token live, relative to the current directory "
                    + "(default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(
            names = "--db-url",
            paramLabel = "URL",
            description = "PostgreSQL, MariaDB or MySQL instead of the embedded database, e.g."
                    + " jdbc:postgresql://db:5432/ax or jdbc:mariadb://db:3306/ax.")
    String dbUrl;

    @Option(names = "--db-user", paramLabel = "USER", description = "The database user.")
    String dbUser;

    @Option(
            names = "--db-password",
            paramLabel = "PASSWORD",
            defaultValue = "${env:AX_DB_PASSWORD}",
            description =
                    "The database password (default: $AX_DB_PASSWORD; prefer the variable: options show in `ps`).")
    String dbPassword;

    @Option(
            names = "--db-pool-size",
            paramLabel = "N",
            defaultValue = "" + DbConfig.DEFAULT_POOL_SIZE,
            description = "Database connections (default: ${DEFAULT-VALUE}).")
    int dbPoolSize;

    @Option(
            names = "--executor-groups",
            paramLabel = "GROUP",
            split = ",",
            defaultValue = "default",
            description = "Groups served by the in-process executor, comma-separated (default: ${DEFAULT-VALUE}).")
    List<String> executorGroups;

    @Option(
            names = "--executor-labels",
            paramLabel = "LABEL",
            split = ",",
            description = "Environment labels of the in-process executor, comma-separated (e.g. test): tasks whose "
                    + "\"environment\" lists labels run only on executors carrying all of them.")
    List<String> executorLabels = new ArrayList<>();

    @Option(
            names = "--executor-concurrency",
            paramLabel = "N",
            defaultValue = "8",
            description =
                    "Runs the in-process executor runs at a time (default: ${DEFAULT-VALUE}); HTTP tasks that mostly wait "
                            + "on the network want more.")
    int executorConcurrency;

    @Option(
            names = "--no-executor",
            description = "Run no in-process executor: runs wait for `ax executor` processes to claim them.")
    boolean noExecutor;

    @Option(
            names = "--alerts",
            paramLabel = "FILE",
            description =
                    "Alert channels (email, dingtalk, webhook, feishu, wecom, slack), console URL, watchdog and anomaly "
                            + "settings as a JSON file; see docs/alerts.md. A mistake in it refuses the start. Without it: no channels, "
                            + "but the watchdog, anomaly detection, /healthz and /metrics still run.")
    Path alertsFile;

    @Option(
            names = "--oidc-config",
            paramLabel = "FILE",
            description = {
                "Single sign-on for the console (OpenID Connect): issuer, client, redirect URI and the mapping of the",
                "provider's groups to AX roles, as a JSON file; see docs/console.md. The client secret may be in",
                "AX_OIDC_CLIENT_SECRET instead. A mistake in it refuses the start."
            })
    Path oidcFile;

    @Option(
            names = "--group-capacity",
            paramLabel = "GROUP=N",
            description = "At most N running runs of an executor group, across all executors (repeatable), "
                    + "so one group's flood cannot take every slot.")
    Map<String, Integer> groupCapacity = new LinkedHashMap<>();

    @Option(
            names = "--idempotency-window",
            paramLabel = "DURATION",
            defaultValue = "PT24H",
            description =
                    "How long a trigger's Idempotency-Key answers with the run it made; after it the same key makes a new run "
                            + "(ISO-8601, e.g. PT24H, PT30M, P7D; default: ${DEFAULT-VALUE}).")
    String idempotencyWindow;

    @Option(
            names = "--drain-timeout",
            paramLabel = "DURATION",
            defaultValue = "PT30S",
            description =
                    "On SIGTERM, how long the in-process executor's runs may go on to their end: the node fires and"
                            + " hands out nothing more and /healthz says draining (503) meanwhile; runs still going then are left"
                            + " to their leases (ISO-8601; default: ${DEFAULT-VALUE}).")
    String drainTimeout;

    @Option(
            names = "--retention-runs",
            paramLabel = "DURATION",
            defaultValue = "P90D",
            description =
                    "How long a run is kept after it ended, with its events and output; a task's"
                            + " policy.retention may say otherwise for its runs (ISO-8601, e.g. P90D, PT12H; default: ${DEFAULT-VALUE}).")
    String retentionRuns;

    @Option(
            names = "--retention-logs",
            paramLabel = "DURATION",
            defaultValue = "P30D",
            description = "How long a run's output is kept after the run ended; the run itself stays as long as"
                    + " --retention-runs says (ISO-8601; default: ${DEFAULT-VALUE}).")
    String retentionLogs;

    @Option(
            names = "--lease",
            paramLabel = "DURATION",
            defaultValue = "PT30S",
            description = "How long a run stays its executor's without a heartbeat (ISO-8601, at least PT1S; default: "
                    + "${DEFAULT-VALUE}). Executors heartbeat every third of it (at most every 2 s), and a run's processes are "
                    + "killed when its executor could not renew it for two thirds of it. Shorter: a lost executor's runs are "
                    + "retried sooner; every node must use the same.")
    String lease;

    @Option(
            names = "--max-request-size",
            paramLabel = "BYTES",
            defaultValue = "" + HttpOptions.DEFAULT_MAX_REQUEST_BYTES,
            description =
                    "The largest request body taken, in bytes (default: ${DEFAULT-VALUE}, 1 MiB; at least 262144, the "
                            + "largest request an executor sends; at most 64 MiB). A larger body gets 413 before anything reads it.")
    long maxRequestSize;

    @Option(
            names = "--tls-cert",
            paramLabel = "FILE",
            description =
                    "Serve HTTPS on --port with this certificate chain (PEM: the server's certificate first, then any "
                            + "intermediate CAs). Needs --tls-key. Clients trust its CA with --ca or AX_CA.")
    Path tlsCert;

    @Option(
            names = "--tls-key",
            paramLabel = "FILE",
            description =
                    "The private key of --tls-cert (PEM, unencrypted: PKCS#8, or PKCS#1 RSA, or EC); keep it readable "
                            + "by the server's user only.")
    Path tlsKey;

    @Option(
            names = "--trusted-proxy",
            paramLabel = "ADDR",
            description =
                    "The IP address of a reverse proxy in front of this server (repeatable): requests from it are "
                            + "counted by the client address its X-Forwarded-For names (the console's log-in throttle). Without it, "
                            + "X-Forwarded-For is ignored and every client behind a proxy shares the proxy's address.")
    List<String> trustedProxies = new ArrayList<>();

    @Option(
            names = "--locale",
            paramLabel = "LANG",
            defaultValue = "en",
            converter = LocaleOption.class,
            description = {
                "The console's language for a person who chose none and whose browser asks for none AX speaks, and the",
                "language of alerts to channels that name none: en or zh-CN (default: ${DEFAULT-VALUE})."
            })
    Locale locale;

    @Option(
            names = "--node-id",
            paramLabel = "ID",
            description = "This node's name in events and logs (default: chosen by the server).")
    String nodeId;

    @Override
    public Integer call() {
        if (configOptions.printedOrChecked(spec)) {
            return ExitCodes.OK;
        }
        ServerConfig config = config();
        Duration drain = DurationOption.notNegative(spec.commandLine(), "--drain-timeout", drainTimeout);
        AxServer server;
        try {
            if (alertsFile != null) {
                config = config.withAlerts(AxServer.readAlerts(alertsFile));
            }
            if (oidcFile != null) {
                config = config.withSso(AxServer.readSso(oidcFile));
            }
            server = AxServer.start(config);
        } catch (RuntimeException e) {
            spec.commandLine().getErr().println("cannot start the AX server: " + rootMessage(e));
            return ExitCodes.REFUSED;
        }
        var out = spec.commandLine().getOut();
        out.println("AX server ready at " + server.url());
        out.println(tokenHint(server.adminTokenFile()));
        out.println(
                config.executorGroups().isEmpty()
                        ? "no in-process executor: start `ax executor` processes to run work"
                        : "in-process executor serving groups " + String.join(", ", config.executorGroups()));
        out.flush();
        Shutdown.awaitSignal("server", () -> {
            server.drain(drain);
            server.close();
        });
        return ExitCodes.OK;
    }

    /** Where the admin token is, and how other ax commands get it; never the token itself (logs get copied). */
    String tokenHint(Path file) {
        if (file == null) {
            return "admin token: the one in AX_ADMIN_TOKEN";
        }
        boolean found = file.toAbsolutePath()
                .normalize()
                .equals(ClientOptions.DEFAULT_TOKEN_FILE.toAbsolutePath().normalize());
        return "admin token: in " + file
                + (found
                        ? " (ax commands run from this directory find it)"
                        : " (for ax commands: export AX_TOKEN=$(cat " + file + "))");
    }

    ServerConfig config() {
        var parsed = spec.commandLine().getParseResult();
        if (noExecutor && parsed.hasMatchedOption("--executor-groups")) {
            throw new ParameterException(
                    spec.commandLine(), "--no-executor and --executor-groups contradict each other");
        }
        DbConfig db = null;
        if (dbUrl != null) {
            if (DB_URL_PREFIXES.stream().noneMatch(dbUrl::startsWith)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--db-url must start with " + String.join(", ", DB_URL_PREFIXES) + " (was '" + dbUrl
                                + "'); leave it out to use the embedded database in --data-dir");
            }
            db = validated(() -> new DbConfig(dbUrl, dbUser, dbPassword, dbPoolSize));
        } else if (dbUser != null || parsed.hasMatchedOption("--db-password")) {
            throw new ParameterException(spec.commandLine(), "--db-user and --db-password need --db-url");
        }
        DbConfig chosen = db;
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new ParameterException(
                    spec.commandLine(), "--tls-cert and --tls-key go together: give both to serve HTTPS");
        }
        HttpOptions http = validated(() -> new HttpOptions(
                maxRequestSize, tlsCert == null ? null : TlsIdentity.load(tlsCert, tlsKey), trustedProxies));
        List<String> groups = noExecutor
                ? List.of()
                : executorGroups.stream()
                        .map(String::strip)
                        .filter(g -> !g.isEmpty())
                        .toList();
        Duration window = idempotencyWindow();
        Duration leaseLength = duration("--lease", lease);
        if (leaseLength.toMillis() < 1000) {
            throw new ParameterException(spec.commandLine(), "--lease must be at least PT1S, was " + lease);
        }
        return validated(() -> new ServerConfig(
                        port,
                        dataDir,
                        chosen,
                        groups,
                        null,
                        nodeId,
                        SchedulerConfig.DEFAULT
                                .withGroupCapacity(groupCapacity)
                                .withIdempotencyWindow(window)
                                .withLeaseMillis(leaseLength.toMillis())
                                .withRetention(retention()),
                        null)
                .withExecutorLabels(executorLabels.stream()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty())
                        .toList())
                .withExecutorConcurrency(executorConcurrency)
                .withHttp(http)
                .withLocale(locale));
    }

    /** {@code --locale}: a language AX speaks, refused by picocli with the option's name (and where it came from). */
    static final class LocaleOption implements ITypeConverter<Locale> {
        @Override
        public Locale convert(String value) {
            String tag = value.strip().replace('_', '-');
            return ServerConfig.LOCALES.stream()
                    .filter(l -> l.toLanguageTag().equalsIgnoreCase(tag))
                    .findFirst()
                    .orElseThrow(() -> new TypeConversionException("must be one of "
                            + String.join(
                                    ", ",
                                    ServerConfig.LOCALES.stream()
                                            .map(Locale::toLanguageTag)
                                            .toList())
                            + ", was '" + value + "'"));
        }
    }

    private Duration duration(String option, String text) {
        return DurationOption.parse(spec.commandLine(), option, text);
    }

    /** {@code --retention-runs} and {@code --retention-logs}, each refused with the option's name. */
    private HistoryRetention retention() {
        return HistoryRetention.DEFAULT
                .withRuns(period("--retention-runs", retentionRuns))
                .withLogs(period("--retention-logs", retentionLogs));
    }

    private Duration period(String option, String text) {
        Duration d = duration(option, text);
        if (d.isNegative() || d.isZero() || d.compareTo(RunRetention.MAX_PERIOD) > 0) {
            throw new ParameterException(
                    spec.commandLine(),
                    option + " must be positive and at most P" + RunRetention.MAX_PERIOD.toDays() + "D, was " + text);
        }
        return d;
    }

    /** {@code --idempotency-window}, refused with the option's name (the config's own check names its field). */
    private Duration idempotencyWindow() {
        Duration window;
        try {
            window = Duration.parse(idempotencyWindow.strip());
        } catch (DateTimeParseException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--idempotency-window must be an ISO-8601 duration such as PT24H, " + "PT30M or P7D, was '"
                            + idempotencyWindow + "'");
        }
        if (window.isNegative() || window.isZero() || window.compareTo(SchedulerConfig.MAX_IDEMPOTENCY_WINDOW) > 0) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--idempotency-window must be positive and at most " + "P"
                            + SchedulerConfig.MAX_IDEMPOTENCY_WINDOW.toDays() + "D, was " + idempotencyWindow);
        }
        return window;
    }

    /** A config record's own check (it names the field) becomes a usage error, exit 2. */
    private <T> T validated(Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The top message and the root cause's: "cannot open the database: Connection refused". */
    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = e.getMessage();
        String bottom = root.getMessage();
        if (top == null) {
            return bottom != null ? bottom : root.getClass().getSimpleName();
        }
        return root == e || bottom == null || top.contains(bottom) ? top : top + ": " + bottom;
    }
}
