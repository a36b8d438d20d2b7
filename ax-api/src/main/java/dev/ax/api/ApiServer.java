package dev.ax.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.scheduler.Dispatcher;
import dev.ax.scheduler.SchedulerNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.HandlerType;
import io.javalin.json.JavalinJackson;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API of one server node: the routes of {@link Routes}, each behind {@link Auth},
 * errors through {@link ErrorMapper}, JSON by {@link Json}.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    /** Executors send output in chunks; a chunk of long lines may be large, a task definition never is. */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 8L * 1024 * 1024;
    /** Longer than the longest long-poll, so a waiting executor is never cut off by Jetty. */
    static final Duration IDLE_TIMEOUT = Duration.ofMillis(Dispatcher.MAX_WAIT_MILLIS).plusSeconds(30);

    private final Javalin app;

    private ApiServer(Javalin app) {
        this.app = app;
    }

    /**
     * Starts listening on {@code host:port} ({@code host} null = every interface, {@code port} 0
     * = any free port).
     */
    public static ApiServer start(SchedulerNode node, String host, int port) {
        return start(node, host, port, cfg -> { });
    }

    /**
     * Like {@link #start(SchedulerNode, String, int)}, with {@code more} adding routes of its own
     * (the web console) to the same app, after the API's. Those routes do their own authentication;
     * an exception they let escape gets {@link ErrorMapper}'s JSON answer like any API route.
     */
    public static ApiServer start(SchedulerNode node, String host, int port, Consumer<JavalinConfig> more) {
        return start(node, host, port, Observability.NONE, more);
    }

    /** Like {@link #start(SchedulerNode, String, int, Consumer)}, with the node's monitoring behind /healthz and /metrics. */
    public static ApiServer start(SchedulerNode node, String host, int port, Observability observability, Consumer<JavalinConfig> more) {
        ObjectMapper json = Json.mapper();
        ApiContext api = new ApiContext(node, json, observability);
        Auth auth = new Auth(api.store(), Auth.DEFAULT_CACHE_TTL);
        List<Route> table = Routes.table(api);
        Javalin app = Javalin.create(cfg -> {
            cfg.startup.showJavalinBanner = false;
            // Long-polls block their request thread; virtual threads make 50 waiting executors cost nothing.
            cfg.concurrency.useVirtualThreads = true;
            cfg.http.maxRequestSize = DEFAULT_MAX_REQUEST_BYTES;
            cfg.jsonMapper(new JavalinJackson(json, false));
            for (Route r : table) {
                cfg.routes.addHttpHandler(HandlerType.findOrCreate(r.method().name()), r.path(), ctx -> {
                    auth.require(ctx, r.role());
                    r.handler().handle(ctx);
                });
            }
            more.accept(cfg);
            cfg.routes.exception(Exception.class, ErrorMapper::handle);
            cfg.routes.error(404, ErrorMapper::noRoute);
        });
        if (host == null) {
            app.start(port);
        } else {
            app.start(host, port);
        }
        for (Connector c : app.jettyServer().server().getConnectors()) {
            if (c instanceof ServerConnector sc) {
                sc.setIdleTimeout(IDLE_TIMEOUT.toMillis());
            }
        }
        log.debug("API listening on port {} with {} routes", app.port(), table.size());
        return new ApiServer(app);
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }
}
