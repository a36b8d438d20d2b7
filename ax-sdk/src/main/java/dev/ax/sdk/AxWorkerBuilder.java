package dev.ax.sdk;

import dev.ax.executor.ExecutorChannel;
import dev.ax.executor.ExecutorConfig;
import dev.ax.executor.Hosts;
import dev.ax.executor.HttpExecutorChannel;
import dev.ax.executor.TlsTrust;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Builds an {@link AxWorker}. Required: {@link #server} and {@link #token} (or a {@link #channel}), at
 * least one {@link #group} and one {@link #handler}. {@link #build()} checks everything and names the
 * field of a bad value; nothing is clamped silently.
 */
public final class AxWorkerBuilder {

    public static final int DEFAULT_CONCURRENCY = 4;
    public static final Duration DEFAULT_POLL_WAIT = Duration.ofSeconds(20);
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);

    private List<URI> servers = List.of();
    private String token;
    private ExecutorChannel channel;
    private final List<String> groups = new ArrayList<>();
    private final Map<String, AxHandler> handlers = new LinkedHashMap<>();
    private final List<String> duplicates = new ArrayList<>();
    private int concurrency = DEFAULT_CONCURRENCY;
    private String executorId;
    private Duration pollWait = DEFAULT_POLL_WAIT;
    private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
    private IdempotencyStore idempotencyStore;
    private boolean failFast = true;
    private SSLContext tls;

    AxWorkerBuilder() {}

    /** The AX server, e.g. {@code http://ax.internal:7070}. */
    public AxWorkerBuilder server(URI server) {
        this.servers = server == null ? List.of() : List.of(server);
        return this;
    }

    /**
     * The nodes of an AX cluster: the worker talks to one and, when it stops answering, goes on with the next,
     * keeping its runs (leases live in the database, any node renews them).
     */
    public AxWorkerBuilder servers(List<URI> nodes) {
        this.servers = nodes == null ? List.of() : List.copyOf(nodes);
        return this;
    }

    public AxWorkerBuilder server(String server) {
        return server(server == null ? null : URI.create(server));
    }

    /**
     * For an {@code https://} server: trust the CA certificate(s) in this PEM file, and no others (without it,
     * the JVM's trusted CAs). The server's certificate must also name the host in {@link #server}.
     *
     * @throws IllegalArgumentException when the file is missing or holds no certificate, naming it
     */
    public AxWorkerBuilder trustedCa(Path pemFile) {
        this.tls = TlsTrust.trusting(pemFile);
        return this;
    }

    /** For an {@code https://} server: the TLS context to connect with (whom to trust; a client certificate). */
    public AxWorkerBuilder sslContext(SSLContext context) {
        this.tls = context;
        return this;
    }

    /** A token with role {@code executor} (or admin). */
    public AxWorkerBuilder token(String token) {
        this.token = token;
        return this;
    }

    /** An executor group whose runs this worker takes (a task's {@code action.group}); may be called again for more. */
    public AxWorkerBuilder group(String group) {
        groups.add(group);
        return this;
    }

    public AxWorkerBuilder groups(List<String> groups) {
        this.groups.addAll(groups);
        return this;
    }

    /** Registers a handler under the name tasks use ({@code action.handler}). */
    public AxWorkerBuilder handler(String name, AxHandler handler) {
        if (handlers.putIfAbsent(name, handler) != null) {
            duplicates.add(name);
        }
        return this;
    }

    public AxWorkerBuilder handlers(Map<String, ? extends AxHandler> handlers) {
        handlers.forEach(this::handler);
        return this;
    }

    /** How many handlers may run at the same time (default {@value #DEFAULT_CONCURRENCY}). */
    public AxWorkerBuilder concurrency(int concurrency) {
        this.concurrency = concurrency;
        return this;
    }

    /**
     * This worker's name on the server (default {@code <host>-<pid>}). A name that stays the same across
     * restarts (a pod or run name) lets the server fail the runs a crashed worker held as soon as it
     * comes back, instead of when their leases expire; it must be unique among running workers.
     */
    public AxWorkerBuilder executorId(String executorId) {
        this.executorId = executorId;
        return this;
    }

    /** How long one long-poll may wait on the server for work (default 20 s). */
    public AxWorkerBuilder pollWait(Duration pollWait) {
        this.pollWait = pollWait;
        return this;
    }

    /**
     * On {@link AxWorker#close()}, how long running handlers may go on to finish and report before they are
     * interrupted; also how long a handler interrupted by its timeout has before the timeout is reported
     * without it (default 10 s).
     */
    public AxWorkerBuilder shutdownGrace(Duration shutdownGrace) {
        this.shutdownGrace = shutdownGrace;
        return this;
    }

    /** Where {@link AxContext#runOnce} records request ids: the handler's own database. */
    public AxWorkerBuilder idempotencyStore(IdempotencyStore idempotencyStore) {
        this.idempotencyStore = idempotencyStore;
        return this;
    }

    /**
     * Whether {@link AxWorker#start()} fails when the server cannot be reached or refuses the token
     * (default {@code true}); with {@code false} the worker keeps trying to register in the background.
     */
    public AxWorkerBuilder failFast(boolean failFast) {
        this.failFast = failFast;
        return this;
    }

    /** Talks to the server through this channel instead of HTTP (tests, custom transports); then server and token are not needed. */
    public AxWorkerBuilder channel(ExecutorChannel channel) {
        this.channel = channel;
        return this;
    }

    public AxWorker build() {
        if (channel == null) {
            if (servers.isEmpty()) {
                throw new IllegalArgumentException("server is required (the AX server's URL, e.g. http://ax:7070)");
            }
            for (URI server : servers) {
                if (!"http".equals(server.getScheme()) && !"https".equals(server.getScheme())) {
                    throw new IllegalArgumentException("server must be an http or https URL, was " + server);
                }
            }
            if (token == null || token.isBlank()) {
                throw new IllegalArgumentException("token is required (an AX token with role executor)");
            }
        }
        if (handlers.isEmpty()) {
            throw new IllegalArgumentException("handlers: register at least one handler");
        }
        if (!duplicates.isEmpty()) {
            throw new IllegalArgumentException("handlers: more than one handler named " + duplicates);
        }
        handlers.forEach((name, handler) -> {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("handlers: a handler name must not be blank");
            }
            Objects.requireNonNull(handler, () -> "handlers: handler '" + name + "' is null");
        });
        if (pollWait == null || pollWait.isNegative()) {
            throw new IllegalArgumentException("pollWait must be zero or positive, was " + pollWait);
        }
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdownGrace must be zero or positive, was " + shutdownGrace);
        }
        String id = executorId != null
                ? executorId
                : Hosts.name() + "-" + ProcessHandle.current().pid();
        // ExecutorConfig checks the id, the groups and the concurrency, naming the field.
        ExecutorConfig config =
                new ExecutorConfig(id, groups, concurrency, pollWait.toMillis(), shutdownGrace, version());
        boolean owns = channel == null;
        ExecutorChannel ch = owns ? new HttpExecutorChannel(servers, token, tls) : channel;
        return new AxWorker(config, ch, owns, handlers, idempotencyStore, failFast);
    }

    /** Shown next to the worker in the executor list, so an SDK worker is told apart from a shell executor. */
    private static String version() {
        String v = AxWorkerBuilder.class.getPackage().getImplementationVersion();
        return "ax-sdk " + (v == null || v.isBlank() ? "dev" : v);
    }
}
