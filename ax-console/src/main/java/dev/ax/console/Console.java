package dev.ax.console;

import dev.ax.console.Session.Who;
import dev.ax.domain.run.IllegalTransitionException;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.ConflictException;
import dev.ax.scheduler.ForbiddenException;
import dev.ax.scheduler.NotFoundException;
import dev.ax.scheduler.SchedulerNode;
import dev.ax.store.ConcurrentChangeException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console: server-rendered pages on the API's port, at {@code /}. {@link #routes} is the
 * one table of its routes; pages need a logged-in person, actions also the session's CSRF field,
 * and each action checks its role ({@link Permissions}) before calling the same services as the API.
 */
public final class Console {
    private static final Logger log = LoggerFactory.getLogger(Console.class);
    /** Set on a response the console wrote itself, so the API's JSON 404 handler leaves it alone (see ErrorMapper). */
    private static final String ERROR_WRITTEN = "ax.error-written";
    static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self';"
            + " connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

    /** A console handler, called with the logged-in person. */
    @FunctionalInterface
    interface Handler {
        void handle(Context ctx, Who who) throws Exception;
    }

    /** PUBLIC_PAGE needs no login; STREAM answers 401 instead of redirecting (an EventSource cannot log in). */
    private enum Kind { PUBLIC_PAGE, PAGE, STREAM, ACTION }

    private record Route(HandlerType method, String path, Kind kind, Handler handler) {
    }

    private Console() {
    }

    /** Adds the console's routes and assets to an app being configured (see {@code ApiServer.start}). */
    public static Consumer<JavalinConfig> routes(SchedulerNode node) {
        ConsoleContext c = new ConsoleContext(node, new Templates());
        return cfg -> {
            cfg.routes.before(Console::securityHeaders);
            Assets.routes(cfg);
            for (Route r : table(c)) {
                cfg.routes.addHttpHandler(r.method(), r.path(), ctx -> serve(c, r, ctx));
            }
        };
    }

    private static List<Route> table(ConsoleContext c) {
        LoginPages login = new LoginPages(c, new LoginThrottle(c.clock()));
        DashboardPage dashboard = new DashboardPage(c);
        TaskPages tasks = new TaskPages(c);
        RunPages runs = new RunPages(c);
        LogStream logs = new LogStream(c);
        SystemPages system = new SystemPages(c);
        WorkflowPages workflows = new WorkflowPages(c);
        return List.of(
                new Route(HandlerType.GET, "/login", Kind.PUBLIC_PAGE, login::form),
                new Route(HandlerType.POST, "/login", Kind.PUBLIC_PAGE, login::login),
                new Route(HandlerType.POST, "/logout", Kind.ACTION, login::logout),

                new Route(HandlerType.GET, "/", Kind.PAGE, dashboard::show),

                new Route(HandlerType.GET, "/tasks", Kind.PAGE, tasks::list),
                new Route(HandlerType.GET, "/new-task", Kind.PAGE, tasks::newForm),
                new Route(HandlerType.POST, "/new-task", Kind.ACTION, tasks::create),
                new Route(HandlerType.GET, "/tasks/{name}", Kind.PAGE, tasks::show),
                new Route(HandlerType.GET, "/tasks/{name}/edit", Kind.PAGE, tasks::editForm),
                new Route(HandlerType.POST, "/tasks/{name}/edit", Kind.ACTION, tasks::update),
                new Route(HandlerType.GET, "/tasks/{name}/delete", Kind.PAGE, tasks::confirmDelete),
                new Route(HandlerType.POST, "/tasks/{name}/delete", Kind.ACTION, tasks::delete),
                new Route(HandlerType.POST, "/tasks/{name}/trigger", Kind.ACTION, tasks::trigger),
                new Route(HandlerType.POST, "/tasks/{name}/pause", Kind.ACTION, tasks::pause),
                new Route(HandlerType.POST, "/tasks/{name}/canary/promote", Kind.ACTION, tasks::promoteCanary),
                new Route(HandlerType.POST, "/tasks/{name}/canary/rollback", Kind.ACTION, tasks::rollbackCanary),
                new Route(HandlerType.POST, "/tasks/{name}/test-run", Kind.ACTION, tasks::testRun),
                new Route(HandlerType.POST, "/tasks/{name}/resume", Kind.ACTION, tasks::resume),

                new Route(HandlerType.GET, "/runs", Kind.PAGE, runs::list),
                new Route(HandlerType.GET, "/runs/{id}", Kind.PAGE, runs::show),
                new Route(HandlerType.GET, "/runs/{id}/stream", Kind.STREAM, logs::stream),
                new Route(HandlerType.POST, "/runs/{id}/terminate", Kind.ACTION, runs::terminate),
                new Route(HandlerType.POST, "/runs/{id}/cancel", Kind.ACTION, runs::cancel),
                new Route(HandlerType.POST, "/runs/{id}/retry", Kind.ACTION, runs::retry),
                new Route(HandlerType.POST, "/runs/{id}/rerun", Kind.ACTION, runs::rerun),
                new Route(HandlerType.POST, "/runs/{id}/approve", Kind.ACTION, runs::approve),
                new Route(HandlerType.POST, "/runs/{id}/reject", Kind.ACTION, runs::reject),

                new Route(HandlerType.GET, "/workflows", Kind.PAGE, workflows::list),
                new Route(HandlerType.GET, "/workflow-runs/{id}", Kind.PAGE, workflows::show),
                new Route(HandlerType.POST, "/workflow-runs/{id}/rerun", Kind.ACTION, workflows::rerun),

                new Route(HandlerType.GET, "/executors", Kind.PAGE, system::executors),
                new Route(HandlerType.GET, "/audit", Kind.PAGE, system::audit),
                new Route(HandlerType.GET, "/health", Kind.PAGE, system::health));
    }

    /**
     * On every answer outside the API, before any handler runs: pages, error pages, redirects, assets and a
     * path that leads nowhere alike. The API's JSON gets {@code nosniff} from the API itself.
     */
    static void securityHeaders(Context ctx) {
        if (ctx.path().startsWith("/api/")) {
            return;
        }
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "same-origin");
    }

    private static void serve(ConsoleContext c, Route r, Context ctx) {
        ctx.header("Cache-Control", "no-store");
        ctx.attribute(ERROR_WRITTEN, Boolean.TRUE);
        try {
            Who who = null;
            if (r.kind() != Kind.PUBLIC_PAGE) {
                who = Session.of(ctx, c.store()).orElse(null);
                if (who == null) {
                    toLogin(ctx, r);
                    return;
                }
                if (r.kind() == Kind.ACTION && !Session.csrfValid(ctx, who)) {
                    error(c, ctx, who, 403, "Refused", "This form was not sent by a console page of your session"
                            + " (or the session changed). Go back, reload and try again.");
                    return;
                }
            }
            try {
                long start = System.nanoTime();
                r.handler().handle(ctx, who);
                if (r.kind() != Kind.STREAM) {
                    // The server's own share of a page's time, for browsers' dev tools and the benchmark.
                    ctx.header("Server-Timing", String.format(java.util.Locale.ROOT, "app;dur=%.1f", (System.nanoTime() - start) / 1e6));
                }
            } catch (Exception e) {
                if (r.kind() == Kind.ACTION && refusal(e) != null) {
                    // An action that was refused goes back to where it came from, saying why.
                    Session.flash(ctx, true, e.getMessage());
                    ctx.redirect(back(ctx), HttpStatus.SEE_OTHER);
                    return;
                }
                throw e;
            }
        } catch (HttpResponseException e) {
            throw e; // Javalin's own refusals are answered by the app's mapper, as for any route
        } catch (Exception e) {
            Integer status = refusal(e);
            if (status == null) {
                log.error("console {} {} failed", ctx.method(), ctx.path(), e);
                error(c, ctx, null, 500, "Something went wrong", e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            } else {
                error(c, ctx, Session.of(ctx, c.store()).orElse(null), status, switch (status) {
                    case 400 -> "Not understood";
                    case 403 -> "Not allowed";
                    case 404 -> "Not found";
                    default -> "Not done";
                }, e.getMessage());
            }
        }
    }

    /** The status of an exception that refuses a request for a reason a person can act on; null for a failure. */
    static Integer refusal(Exception e) {
        return switch (e) {
            case BadRequest b -> 400;
            case ValidationException v -> 400;
            case Refused r -> 403;
            case ForbiddenException f -> 403;
            case NotFoundException n -> 404;
            case ConflictException c -> 409;
            case ConcurrentChangeException c -> 409;
            case IllegalTransitionException t -> 409;
            default -> null;
        };
    }

    private static void toLogin(Context ctx, Route r) {
        if (r.kind() == Kind.STREAM) {
            ctx.status(401).contentType("text/plain").result("log in first");
            return;
        }
        if (r.kind() == Kind.ACTION) {
            // A form cannot be replayed after a login: the person logs in and does it again.
            ctx.redirect("/login", HttpStatus.SEE_OTHER);
            return;
        }
        String next = ctx.path() + (ctx.queryString() == null ? "" : "?" + ctx.queryString());
        String login = "/login?next=" + URLEncoder.encode(next, StandardCharsets.UTF_8);
        if ("true".equals(ctx.header("HX-Request"))) {
            // An htmx refresh would follow a redirect silently and swap in nothing: have htmx load the login page.
            ctx.header("HX-Redirect", login).status(200);
            return;
        }
        ctx.redirect(login, HttpStatus.SEE_OTHER);
    }

    private static void error(ConsoleContext c, Context ctx, Who who, int status, String title, String message) {
        ctx.status(status);
        c.templates().page(ctx, "error.jte", new Page(title, null, who, null), new Views.ErrorPage(status, title, message));
    }

    /** Where an action returns: the form's {@code back} field when it is a path of this site, else the dashboard. */
    static String back(Context ctx) {
        return localPath(ctx.formParam("back"), "/");
    }

    /** {@code path} if it is a path on this site (not {@code //host} or a URL), else {@code fallback}. */
    static String localPath(String path, String fallback) {
        if (path == null || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) {
            return fallback;
        }
        return path;
    }

    /** Thrown when the logged-in person's role may not do an action. */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message);
        }
    }

    /** Refuses unless {@code who} may do {@code action}: the server checks even what the page did not offer. */
    static void require(Who who, Permissions.Action action) {
        var role = Permissions.required(action);
        if (!who.may(role, null)) {
            throw new Refused(who.name() + " (" + who.role().wireName() + ") may not " + action.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + "; that needs the " + role.wireName() + " role");
        }
    }
}
