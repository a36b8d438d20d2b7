package dev.ax.server;

import dev.ax.alerts.Alerts;
import dev.ax.alerts.AlertsConfig;
import dev.ax.alerts.AlertsConfigReader;
import dev.ax.alerts.ServerLogFile;
import dev.ax.api.ApiServer;
import dev.ax.api.Json;
import dev.ax.console.Console;
import dev.ax.console.SsoConfig;
import dev.ax.domain.task.ValidationException;
import dev.ax.domain.time.SystemClock;
import dev.ax.executor.ExecutorAgent;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.Hosts;
import dev.ax.scheduler.Keyring;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.DatabaseClock;
import dev.ax.store.DbConfig;
import dev.ax.store.Store;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One AX server node: store, scheduler, HTTP API and, when groups are configured, an in-process
 * executor that talks to the dispatcher through the same protocol a remote one uses.
 */
public final class AxServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AxServer.class);

    private final Store store;
    private final SchedulerNode node;
    private final ApiServer api;
    private final ExecutorAgent executor;
    private final AdminToken.Bootstrap admin;
    private final Alerts alerts;
    private final ServerLogFile serverLog;
    private final String scheme;
    private boolean closed;

    private AxServer(
            Store store,
            SchedulerNode node,
            ApiServer api,
            ExecutorAgent executor,
            AdminToken.Bootstrap admin,
            Alerts alerts,
            ServerLogFile serverLog,
            String scheme) {
        this.store = store;
        this.node = node;
        this.api = api;
        this.executor = executor;
        this.admin = admin;
        this.alerts = alerts;
        this.serverLog = serverLog;
        this.scheme = scheme;
    }

    /**
     * Reads an {@code --alerts} file; a mistake in it refuses the start with the field named. A
     * channel that is merely unreachable is no mistake: it fails at send time and shows on /healthz.
     */
    public static AlertsConfig readAlerts(Path file) {
        try {
            return AlertsConfigReader.read(file);
        } catch (IllegalArgumentException e) {
            throw new StartupException("cannot start: alerts configuration " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads an {@code --oidc-config} file (JSON, see docs/console.md); a mistake in it refuses the start with the field
     * named. The client secret may stay out of the file, in {@code AX_OIDC_CLIENT_SECRET}.
     */
    public static SsoConfig readSso(Path file) {
        Object json;
        try {
            json = Json.mapper().readValue(file.toFile(), Object.class);
        } catch (IOException e) {
            throw new StartupException("cannot start: single sign-on configuration " + file + ": " + e.getMessage(), e);
        }
        try {
            return SsoConfig.parse(json, System.getenv(SsoConfig.CLIENT_SECRET_ENV));
        } catch (ValidationException e) {
            throw new StartupException("cannot start: single sign-on configuration " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts a node, or fails with a {@link StartupException} that says why (the database cannot
     * be reached, its schema lacks a guarantee AX relies on, the port is taken), leaving nothing running.
     */
    public static AxServer start(ServerConfig cfg) {
        createDataDir(cfg.dataDir());
        // The scheduler's own log, rotated and capped, apart from run output (which goes to the database, capped too).
        ServerLogFile serverLog = ServerLogFile.install(
                cfg.dataDir().resolve("logs"), cfg.alerts().logs());
        DbConfig db = cfg.effectiveDb();
        Keyring keyring;
        try {
            keyring = SecretKeys.load(cfg.dataDir(), cfg.secretKey(), cfg.secretKeyPrevious());
        } catch (RuntimeException e) {
            serverLog.close();
            throw e instanceof StartupException s
                    ? s
                    : new StartupException("cannot start: secret key: " + e.getMessage(), e);
        }
        Store store;
        try {
            store = Store.open(db);
        } catch (RuntimeException e) {
            serverLog.close();
            throw new StartupException(
                    "cannot start: database " + describe(db, cfg.dataDir()) + ": " + e.getMessage(), e);
        }
        SchedulerNode node = null;
        ApiServer api = null;
        ExecutorAgent executor = null;
        Alerts alerts = null;
        try {
            DatabaseClock clock =
                    new DatabaseClock(store.db(), new SystemClock(cfg.clockSkew()), DatabaseClock.DEFAULT_RESYNC);
            String nodeId = cfg.nodeId() != null ? cfg.nodeId() : defaultNodeId();
            AdminToken.Bootstrap admin = AdminToken.ensure(store, cfg.dataDir(), cfg.adminToken());
            node = new SchedulerNode(nodeId, store, clock, cfg.effectiveScheduler(), new HttpWebhookSender(), keyring)
                    .start();
            alerts = Alerts.start(node, cfg.alerts().withLanguage(cfg.locale()));
            api = ApiServer.start(
                    node,
                    null,
                    cfg.port(),
                    cfg.http(),
                    new AlertsObservability(alerts),
                    Console.routes(node, cfg.sso(), cfg.locale()));
            if (!cfg.executorGroups().isEmpty()) {
                executor = new ExecutorAgent(
                        ExecutorConfig.of(nodeId + "-local", cfg.executorGroups())
                                .withLabels(cfg.executorLabels())
                                .withConcurrency(cfg.executorConcurrency()),
                        new InProcessChannel(node.dispatcher()));
                executor.start();
            }
            AxServer server = new AxServer(
                    store,
                    node,
                    api,
                    executor,
                    admin,
                    alerts,
                    serverLog,
                    cfg.http().scheme());
            log.info(
                    "AX listening on {} (database: {}), {}, secrets sealed with key {} ({}){}",
                    server.url(),
                    describe(db, cfg.dataDir()),
                    admin.source(),
                    keyring.current().id(),
                    keyring.source(),
                    executor == null ? "" : ", in-process executor for groups " + cfg.executorGroups());
            return server;
        } catch (RuntimeException e) {
            closeQuietly(api, executor, alerts, node, store, serverLog);
            throw e instanceof StartupException s ? s : new StartupException("cannot start: " + e.getMessage(), e);
        }
    }

    public int port() {
        return api.port();
    }

    /**
     * The address a client on this machine uses (the API listens on every interface); {@code https://} when
     * the node serves HTTPS, and then a client checks the certificate names 127.0.0.1.
     */
    public URI url() {
        return URI.create(scheme + "://127.0.0.1:" + port());
    }

    /** The admin token, when this node knows it (configured, or generated into the data dir); else null. */
    public String adminToken() {
        return admin.token();
    }

    /**
     * The file holding the admin token, or null when it came from the configuration or the
     * environment, or when tokens already existed and this data directory has no token file.
     */
    public Path adminTokenFile() {
        return admin.file();
    }

    /**
     * Where the admin token is, in words for a start-up message ("admin token in /srv/ax/admin.token",
     * "admin token from AX_ADMIN_TOKEN", ...); never the token itself.
     */
    public String adminTokenSource() {
        return admin.source();
    }

    public SchedulerNode node() {
        return node;
    }

    public Store store() {
        return store;
    }

    /** Alerts, watchdog, anomaly detection and metrics of this node. */
    public Alerts alerts() {
        return alerts;
    }

    /** Stops taking requests, then the executor (its runs' leases expire), then the loops, then the pool. */
    /**
     * Starts an orderly stop: this node fires and hands out nothing more ({@code /healthz} says {@code draining}, 503),
     * and its in-process executor takes no more runs and waits up to {@code timeout} for those it holds to end. Returns
     * when they did or the time is up; {@link #close()} then stops the rest, and runs still going are left to their
     * leases (another node retries them).
     */
    public void drain(Duration timeout) {
        node.drain();
        log.info(
                "AX node {} draining: no more firing or work handed out",
                node.context().nodeId());
        if (executor != null) {
            executor.drain(timeout);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeQuietly(api, executor, alerts, node, store);
        log.info("AX node {} stopped", node.context().nodeId());
        serverLog.close();
    }

    private static void closeQuietly(AutoCloseable... parts) {
        for (AutoCloseable part : parts) {
            if (part == null) {
                continue;
            }
            try {
                part.close();
            } catch (Exception e) {
                log.warn("error while stopping {}: {}", part.getClass().getSimpleName(), e.toString());
            }
        }
    }

    private static void createDataDir(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new StartupException("cannot create the data directory " + dir.toAbsolutePath() + ": " + e, e);
        }
    }

    /** "H2 file ./ax-data" or "PostgreSQL host:5432/ax": where the data is, never the password. */
    static String describe(DbConfig db, Path dataDir) {
        String url = db.url();
        if (url.startsWith("jdbc:h2:mem:")) {
            return "H2 in-memory";
        }
        if (url.startsWith("jdbc:h2:")) {
            return "H2 file " + dataDir;
        }
        int q = url.indexOf('?');
        String withoutParams = q < 0 ? url : url.substring(0, q);
        for (Map.Entry<String, String> server : SERVERS.entrySet()) {
            if (withoutParams.startsWith(server.getKey())) {
                return server.getValue() + " "
                        + withoutParams.substring(server.getKey().length());
            }
        }
        return withoutParams;
    }

    private static final Map<String, String> SERVERS =
            Map.of("jdbc:postgresql://", "PostgreSQL", "jdbc:mariadb://", "MariaDB", "jdbc:mysql://", "MySQL");

    /** host-pid: unique per process, readable in events ("fired by node build-01-4242"). */
    static String defaultNodeId() {
        return Hosts.name() + "-" + ProcessHandle.current().pid();
    }
}
