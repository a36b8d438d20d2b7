package dev.ax.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.scheduler.Dispatcher;
import dev.ax.scheduler.SchedulerNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.json.JavalinJackson;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API of one server node: the routes of {@link Routes}, each behind {@link Auth},
 * errors through {@link ErrorMapper}, JSON by {@link Json}, every request through {@link RequestChecks}
 * first; plain HTTP or HTTPS ({@link HttpOptions}).
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** Longer than the longest long-poll, so a waiting executor is never cut off by Jetty. */
    static final Duration IDLE_TIMEOUT =
            Duration.ofMillis(Dispatcher.MAX_WAIT_MILLIS).plusSeconds(30);

    private final Javalin app;

    private ApiServer(Javalin app) {
        this.app = app;
    }

    /**
     * Starts listening on {@code host:port} ({@code host} null = every interface, {@code port} 0
     * = any free port).
     */
    public static ApiServer start(SchedulerNode node, String host, int port) {
        return start(node, host, port, cfg -> {});
    }

    /**
     * Like {@link #start(SchedulerNode, String, int)}, with {@code more} adding routes of its own
     * (the web console) to the same app, after the API's. Those routes do their own authentication;
     * an exception they let escape gets {@link ErrorMapper}'s JSON answer like any API route.
     */
    public static ApiServer start(SchedulerNode node, String host, int port, Consumer<JavalinConfig> more) {
        return start(node, host, port, HttpOptions.DEFAULT, Observability.NONE, more);
    }

    /**
     * Like {@link #start(SchedulerNode, String, int, Consumer)}, with the request size limit, HTTPS and
     * trusted proxies of {@code http}, and the node's monitoring behind /healthz and /metrics.
     */
    public static ApiServer start(
            SchedulerNode node,
            String host,
            int port,
            HttpOptions http,
            Observability observability,
            Consumer<JavalinConfig> more) {
        ObjectMapper json = Json.mapper();
        Auth auth = new Auth(node.context().store(), node.context().clock(), Auth.DEFAULT_CACHE_TTL);
        ApiContext api = new ApiContext(node, json, observability, auth);
        AuditTrail audit = new AuditTrail(api);
        List<Route> table = Routes.table(api);
        RequestChecks checks = new RequestChecks(http.maxRequestBytes());
        ClientAddress clients = new ClientAddress(http.trustedProxies());
        Javalin app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            // Long-polls block their request thread; virtual threads make 50 waiting executors cost nothing.
            cfg.concurrency.useVirtualThreads = true;
            cfg.http.maxRequestSize = http.maxRequestBytes();
            cfg.contextResolver.ip = clients::of;
            cfg.jsonMapper(new JavalinJackson(json, false));
            cfg.routes.before(RequestChecks::headers);
            for (Route r : table) {
                cfg.routes.addHttpHandler(HandlerType.findOrCreate(r.method().name()), r.path(), ctx -> {
                    try {
                        AuditTrail.route(ctx, r);
                        auth.require(ctx, r, api);
                        if (r.method() == Route.Method.DELETE && r.scope() != Scope.GLOBAL) {
                            Auth.owners(
                                    ctx, r,
                                    api); // the team of what is deleted, for its audit entry: afterwards it is gone
                        }
                        r.handler().handle(ctx);
                    } catch (Exception e) {
                        audit.record(ctx, r, e);
                        throw e;
                    }
                    audit.record(ctx, r, null);
                });
            }
            more.accept(cfg);
            // After the console's own before-handlers, so a refused body still carries its security headers.
            cfg.routes.before(checks::body);
            // Javalin answers its own exceptions (a body read past the limit, no such route) in a shape of its own.
            cfg.routes.exception(
                    HttpResponseException.class, (e, ctx) -> ErrorMapper.handle(checks.translate(e, ctx), ctx));
            cfg.routes.exception(Exception.class, ErrorMapper::handle);
            cfg.routes.error(404, ErrorMapper::noRoute);
            if (http.tls() != null) {
                cfg.jetty.addConnector(
                        (server, httpConfig) -> httpsConnector(server, httpConfig, http.tls(), host, port));
            }
        });
        if (http.tls() != null) {
            app.start(); // on the HTTPS connector, which knows host and port
        } else if (host == null) {
            app.start(port);
        } else {
            app.start(host, port);
        }
        for (Connector c : app.jettyServer().server().getConnectors()) {
            if (c instanceof ServerConnector sc) {
                sc.setIdleTimeout(IDLE_TIMEOUT.toMillis());
            }
        }
        log.debug("API listening on port {} ({}) with {} routes", app.port(), http.scheme(), table.size());
        return new ApiServer(app);
    }

    /**
     * HTTPS on the node's one port, HTTP/1.1 inside (executors and the CLI speak nothing else). The SNI host
     * check is off: whether the certificate names the host is for the client to verify, and clients that dial
     * an IP address send no SNI at all.
     */
    private static ServerConnector httpsConnector(
            Server server, HttpConfiguration httpConfig, TlsIdentity tls, String host, int port) {
        httpConfig.addCustomizer(new SecureRequestCustomizer(false));
        SslContextFactory.Server ssl = new SslContextFactory.Server();
        ssl.setSslContext(tls.sslContext());
        ServerConnector connector = new ServerConnector(
                server,
                new SslConnectionFactory(ssl, HttpVersion.HTTP_1_1.asString()),
                new HttpConnectionFactory(httpConfig));
        connector.setHost(host);
        connector.setPort(port);
        return connector;
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }
}
