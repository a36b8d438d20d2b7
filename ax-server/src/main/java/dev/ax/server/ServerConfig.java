package dev.ax.server;

import dev.ax.alerts.AlertsConfig;
import dev.ax.api.HttpOptions;
import dev.ax.console.SsoConfig;
import dev.ax.executor.ExecutorConfig;
import dev.ax.scheduler.HistoryRetention;
import dev.ax.scheduler.SchedulerConfig;
import dev.ax.store.DbConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * How to start one server node. Immutable; defaults named DEFAULT_*.
 *
 * @param db                 {@code null} = the embedded H2 file database under {@code dataDir}
 * @param executorGroups     groups served by the in-process executor; empty = no in-process executor
 * @param adminToken         {@code null} = take AX_ADMIN_TOKEN, else create one in {@code dataDir} on first start
 * @param clockSkew          added to this node's clock; only tests set it (to prove skew is harmless)
 * @param alerts             alert channels, watchdog and anomaly settings ({@code --alerts FILE}); null = no channels, defaults
 * @param executorLabels     environment labels of the in-process executor ({@code --executor-labels prod}); empty = none
 * @param executorConcurrency runs the in-process executor runs at a time ({@code --executor-concurrency})
 * @param http               request size limit, HTTPS and trusted proxies ({@code --max-request-size}, {@code --tls-cert},
 *                           {@code --tls-key}, {@code --trusted-proxy}); null = {@link HttpOptions#DEFAULT}
 * @param secretKey          the master key of secrets, base64 of 32 bytes; {@code null} = take AX_SECRET_KEY, else the key
 *                           file {@code secret.key} in {@code dataDir} (made on the first start)
 * @param secretKeyPrevious  the key before a rotation, still opening the secrets it sealed; {@code null} = take
 *                           AX_SECRET_KEY_PREVIOUS
 * @param sso                single sign-on for the console ({@code --oidc-config FILE}); null = token log-in only
 * @param locale             the console's language for a person who chose none and whose browser asks for none AX
 *                           speaks, and the language of alerts to channels that name none ({@code --locale}); one of
 *                           {@link #LOCALES}, null = {@link #DEFAULT_LOCALE}
 */
public record ServerConfig(
        int port,
        Path dataDir,
        DbConfig db,
        List<String> executorGroups,
        String adminToken,
        String nodeId,
        SchedulerConfig scheduler,
        Duration clockSkew,
        AlertsConfig alerts,
        List<String> executorLabels,
        int executorConcurrency,
        HttpOptions http,
        String secretKey,
        String secretKeyPrevious,
        SsoConfig sso,
        Locale locale) {
    /** A node in the default language. */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew,
            AlertsConfig alerts,
            List<String> executorLabels,
            int executorConcurrency,
            HttpOptions http,
            String secretKey,
            String secretKeyPrevious,
            SsoConfig sso) {
        this(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                http,
                secretKey,
                secretKeyPrevious,
                sso,
                null);
    }

    /** A node without single sign-on. */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew,
            AlertsConfig alerts,
            List<String> executorLabels,
            int executorConcurrency,
            HttpOptions http,
            String secretKey,
            String secretKeyPrevious) {
        this(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                http,
                secretKey,
                secretKeyPrevious,
                null);
    }

    /** A node whose secret key comes from the environment or its data directory. */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew,
            AlertsConfig alerts,
            List<String> executorLabels,
            int executorConcurrency,
            HttpOptions http) {
        this(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                http,
                null,
                null);
    }

    /** A node with the default HTTP options: plain HTTP, 1 MiB requests. */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew,
            AlertsConfig alerts,
            List<String> executorLabels,
            int executorConcurrency) {
        this(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                HttpOptions.DEFAULT);
    }

    /** A node whose in-process executor runs {@link ExecutorConfig#DEFAULT_CONCURRENCY} runs at a time. */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew,
            AlertsConfig alerts,
            List<String> executorLabels) {
        this(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                ExecutorConfig.DEFAULT_CONCURRENCY);
    }

    /** A node whose in-process executor carries no environment labels. */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew,
            AlertsConfig alerts) {
        this(port, dataDir, db, executorGroups, adminToken, nodeId, scheduler, clockSkew, alerts, List.of());
    }

    /** A node without alert channels (the watchdog, anomaly detection and metrics still run). */
    public ServerConfig(
            int port,
            Path dataDir,
            DbConfig db,
            List<String> executorGroups,
            String adminToken,
            String nodeId,
            SchedulerConfig scheduler,
            Duration clockSkew) {
        this(port, dataDir, db, executorGroups, adminToken, nodeId, scheduler, clockSkew, null);
    }

    public static final int DEFAULT_PORT = 7070;
    public static final Path DEFAULT_DATA_DIR = Path.of("ax-data");
    public static final List<String> DEFAULT_EXECUTOR_GROUPS = List.of("default");
    /** The languages AX speaks: English and Simplified Chinese. */
    public static final List<Locale> LOCALES = List.of(Locale.ENGLISH, Locale.SIMPLIFIED_CHINESE);

    public static final Locale DEFAULT_LOCALE = Locale.ENGLISH;

    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be between 0 and 65535 (0 = any free port), was " + port);
        }
        Objects.requireNonNull(dataDir, "dataDir");
        executorGroups = List.copyOf(executorGroups);
        scheduler = scheduler == null ? SchedulerConfig.DEFAULT : scheduler;
        clockSkew = clockSkew == null ? Duration.ZERO : clockSkew;
        alerts = alerts == null ? AlertsConfig.NONE : alerts;
        executorLabels = executorLabels == null ? List.of() : List.copyOf(executorLabels);
        if (executorConcurrency < 1) {
            throw new IllegalArgumentException("executorConcurrency must be at least 1, was " + executorConcurrency);
        }
        http = http == null ? HttpOptions.DEFAULT : http;
        locale = locale == null ? DEFAULT_LOCALE : locale;
        if (!LOCALES.contains(locale)) {
            throw new IllegalArgumentException("locale must be one of "
                    + String.join(
                            ", ", LOCALES.stream().map(Locale::toLanguageTag).toList()) + ", was "
                    + locale.toLanguageTag());
        }
    }

    public ServerConfig withAlerts(AlertsConfig a) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                a,
                executorLabels,
                executorConcurrency,
                http,
                secretKey,
                secretKeyPrevious,
                sso,
                locale);
    }

    public ServerConfig withExecutorLabels(List<String> labels) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                labels,
                executorConcurrency,
                http,
                secretKey,
                secretKeyPrevious,
                sso,
                locale);
    }

    /** The master key of secrets as AX_SECRET_KEY and AX_SECRET_KEY_PREVIOUS would give it (either may be null). */
    public ServerConfig withSecretKey(String key, String previous) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                http,
                key,
                previous,
                sso,
                locale);
    }

    /** How many runs the in-process executor runs at a time (HTTP calls that mostly wait want many more than the default). */
    public ServerConfig withExecutorConcurrency(int concurrency) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                concurrency,
                http,
                secretKey,
                secretKeyPrevious,
                sso,
                locale);
    }

    /** How the node's HTTP server meets the outside: request size limit, HTTPS, trusted proxies. */
    public ServerConfig withSso(SsoConfig s) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                http,
                secretKey,
                secretKeyPrevious,
                s,
                locale);
    }

    public ServerConfig withHttp(HttpOptions options) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                options,
                secretKey,
                secretKeyPrevious,
                sso,
                locale);
    }

    /** The language of the console and of the alerts of channels that name none ({@code --locale}). */
    public ServerConfig withLocale(Locale l) {
        return new ServerConfig(
                port,
                dataDir,
                db,
                executorGroups,
                adminToken,
                nodeId,
                scheduler,
                clockSkew,
                alerts,
                executorLabels,
                executorConcurrency,
                http,
                secretKey,
                secretKeyPrevious,
                sso,
                l);
    }

    /** The scheduler's settings, knowing the configured alert channels (a task naming another one gets a warning). */
    public SchedulerConfig effectiveScheduler() {
        Set<String> channels = new TreeSet<>(scheduler.channels());
        channels.addAll(alerts.channels().keySet());
        SchedulerConfig s = scheduler.withChannels(channels);
        // Before --retention-logs, the alerts file's logs.runRetentionDays said how long run output was kept: a file
        // that sets it keeps doing so unless the option is given.
        int days = alerts.logs().runRetentionDays();
        if (days != AlertsConfig.Logs.DEFAULT_RUN_RETENTION_DAYS
                && s.retention().logs().equals(HistoryRetention.DEFAULT_LOGS)) {
            s = s.withRetention(s.retention().withLogs(Duration.ofDays(days)));
        }
        return s;
    }

    public static ServerConfig defaults() {
        return new ServerConfig(
                DEFAULT_PORT,
                DEFAULT_DATA_DIR,
                null,
                DEFAULT_EXECUTOR_GROUPS,
                null,
                null,
                SchedulerConfig.DEFAULT,
                Duration.ZERO);
    }

    public DbConfig effectiveDb() {
        return db != null ? db : DbConfig.embedded(dataDir);
    }
}
