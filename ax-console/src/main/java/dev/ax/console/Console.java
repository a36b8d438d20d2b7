package dev.ax.console;

import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Who;
import dev.ax.domain.state.IllegalTransitionException;
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
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console: server-rendered pages on the API's port, at {@code /}. {@link #routes} is the
 * one table of its routes; pages need a logged-in person, actions also the session's CSRF field,
 * and each action checks its role in the team of what it acts on ({@link Permissions}, {@link Access}) before
 * calling the same services as the API, and leaves one entry in the audit log ({@link ConsoleAudit}).
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

    /** What an action whose form holds a draft does when it is refused: show the draft again with why, not lose it. */
    @FunctionalInterface
    interface Refusal {
        void refused(Context ctx, Who who, Refused refused) throws Exception;
    }

    /** PUBLIC_PAGE needs no login; STREAM answers 401 instead of redirecting (an EventSource cannot log in). */
    private enum Kind {
        PUBLIC_PAGE,
        PAGE,
        STREAM,
        ACTION
    }

    /**
     * One route. An ACTION's {@code action} says who may do it and what the audit log calls it; it is checked before
     * the handler runs, against the team of what it acts on ({@link Access}). Only the log-out is an action of none.
     */
    private record Route(
            HandlerType method, String path, Kind kind, Action action, Handler handler, Refusal onRefusal) {
        Route(HandlerType method, String path, Kind kind, Handler handler) {
            this(method, path, kind, null, handler, null);
        }

        static Route page(String path, Handler handler) {
            return new Route(HandlerType.GET, path, Kind.PAGE, handler);
        }

        static Route action(String path, Action action, Handler handler) {
            return new Route(HandlerType.POST, path, Kind.ACTION, action, handler, null);
        }

        static Route draft(String path, Action action, Handler handler, Refusal onRefusal) {
            return new Route(HandlerType.POST, path, Kind.ACTION, action, handler, onRefusal);
        }
    }

    private Console() {}

    /** Adds the console's routes and assets to an app being configured (see {@code ApiServer.start}). */
    public static Consumer<JavalinConfig> routes(SchedulerNode node) {
        return routes(node, null);
    }

    /** As above, with single sign-on through the company's identity provider ({@code sso} null: token log-in only). */
    public static Consumer<JavalinConfig> routes(SchedulerNode node, SsoConfig sso) {
        return routes(node, sso, I18n.EN);
    }

    /**
     * As above, speaking {@code locale} ({@code --locale}: one of {@link I18n#SUPPORTED}) to a person whose browser asks
     * for no language the console speaks and who chose none.
     */
    public static Consumer<JavalinConfig> routes(SchedulerNode node, SsoConfig sso, Locale locale) {
        Access.check();
        if (!I18n.SUPPORTED.contains(locale)) {
            throw new IllegalArgumentException(
                    "locale must be one of " + I18n.tags() + ", was " + locale.toLanguageTag());
        }
        ConsoleContext c = new ConsoleContext(node, new Templates(), locale);
        return cfg -> {
            cfg.routes.before(Console::securityHeaders);
            Assets.routes(cfg);
            for (Route r : table(c, sso)) {
                cfg.routes.addHttpHandler(r.method(), r.path(), ctx -> serve(c, r, ctx));
            }
        };
    }

    private static List<Route> table(ConsoleContext c, SsoConfig ssoConfig) {
        SsoPages sso = ssoConfig == null ? null : new SsoPages(c, ssoConfig);
        LoginPages login = new LoginPages(c, new LoginThrottle(c.clock()), sso == null ? null : sso.label());
        DashboardPage dashboard = new DashboardPage(c);
        TaskPages tasks = new TaskPages(c);
        RunPages runs = new RunPages(c);
        LogStream logs = new LogStream(c);
        SystemPages system = new SystemPages(c);
        WorkflowPages workflows = new WorkflowPages(c);
        TokenPages tokens = new TokenPages(c);
        TeamPages teams = new TeamPages(c);
        AuditPage audit = new AuditPage(c);
        List<Route> signIn = sso == null
                ? List.of()
                : List.of(
                        new Route(HandlerType.GET, "/login/sso", Kind.PUBLIC_PAGE, sso::begin),
                        new Route(HandlerType.GET, "/login/sso/callback", Kind.PUBLIC_PAGE, sso::callback));
        return Stream.concat(
                        signIn.stream(),
                        List.of(
                                new Route(HandlerType.GET, "/login", Kind.PUBLIC_PAGE, login::form),
                                new Route(HandlerType.GET, "/language", Kind.PUBLIC_PAGE, Console::language),
                                new Route(HandlerType.POST, "/login", Kind.PUBLIC_PAGE, login::login),
                                new Route(HandlerType.POST, "/logout", Kind.ACTION, login::logout),
                                Route.page("/", dashboard::show),
                                Route.page("/tasks", tasks::list),
                                Route.page("/new-task", tasks::newForm),
                                Route.draft("/new-task", Action.CREATE_TASK, tasks::create, tasks::refusedDraft),
                                Route.page("/tasks/{name}", tasks::show),
                                Route.page("/tasks/{name}/edit", tasks::editForm),
                                Route.draft("/tasks/{name}/edit", Action.EDIT_TASK, tasks::update, tasks::refusedDraft),
                                Route.page("/tasks/{name}/delete", tasks::confirmDelete),
                                Route.action("/tasks/{name}/delete", Action.DELETE_TASK, tasks::delete),
                                Route.action("/tasks/{name}/trigger", Action.TRIGGER_TASK, tasks::trigger),
                                Route.action("/tasks/{name}/pause", Action.PAUSE_TASK, tasks::pause),
                                Route.action(
                                        "/tasks/{name}/canary/promote", Action.PROMOTE_CANARY, tasks::promoteCanary),
                                Route.action(
                                        "/tasks/{name}/canary/rollback", Action.ROLLBACK_CANARY, tasks::rollbackCanary),
                                Route.draft(
                                        "/tasks/{name}/test-run", Action.TEST_RUN, tasks::testRun, tasks::refusedDraft),
                                Route.action("/tasks/{name}/resume", Action.RESUME_TASK, tasks::resume),
                                Route.page("/runs", runs::list),
                                Route.page("/runs/{id}", runs::show),
                                new Route(HandlerType.GET, "/runs/{id}/stream", Kind.STREAM, logs::stream),
                                Route.action("/runs/{id}/terminate", Action.TERMINATE_RUN, runs::terminate),
                                Route.action("/runs/{id}/cancel", Action.CANCEL_RUN, runs::cancel),
                                Route.action("/runs/{id}/retry", Action.RETRY_RUN, runs::retry),
                                Route.action("/runs/{id}/rerun", Action.RERUN_RUN, runs::rerun),
                                Route.action("/runs/{id}/approve", Action.APPROVE_RUN, runs::approve),
                                Route.action("/runs/{id}/reject", Action.REJECT_RUN, runs::reject),
                                Route.page("/workflows", workflows::list),
                                Route.page("/workflow-runs/{id}", workflows::show),
                                Route.action("/workflow-runs/{id}/rerun", Action.RERUN_WORKFLOW, workflows::rerun),
                                Route.page("/tokens", tokens::list),
                                Route.action("/tokens", Action.CREATE_TOKEN, tokens::create),
                                Route.page("/my-tokens", tokens::mine),
                                Route.action("/tokens/{name}/revoke", Action.REVOKE_TOKEN, tokens::revoke),
                                Route.page("/teams", teams::list),
                                Route.action("/teams", Action.CREATE_TEAM, teams::create),
                                Route.page("/teams/{name}", teams::show),
                                Route.action("/teams/{name}/delete", Action.DELETE_TEAM, teams::delete),
                                Route.page("/executors", system::executors),
                                Route.page("/audit", audit::show),
                                Route.page("/health", system::health))
                                .stream())
                .toList();
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
        I18n.attach(ctx, c.locale());
        Who who = null;
        Exception failure = null; // what refused or broke an action, for its audit entry
        try {
            if (r.kind() != Kind.PUBLIC_PAGE) {
                who = Session.of(ctx, c.store()).orElse(null);
                if (who == null) {
                    toLogin(ctx, r);
                    return;
                }
                if (r.kind() == Kind.ACTION && !Session.csrfValid(ctx, who)) {
                    failure = new Refused("This form was not sent by a console page of your session"
                            + " (or the session changed). Go back, reload and try again.");
                    I18n t = I18n.of(ctx);
                    error(c, ctx, who, 403, t.text("error.refused"), Reasons.of(t, failure.getMessage()));
                    return;
                }
            }
            try {
                long start = System.nanoTime();
                if (r.kind() == Kind.ACTION && r.action() != null) {
                    // The server checks even what the page did not offer, with the role in the target's team.
                    Access.require(c, ctx, who, r.action());
                }
                r.handler().handle(ctx, who);
                if (r.kind() != Kind.STREAM) {
                    // The server's own share of a page's time, for browsers' dev tools and the benchmark.
                    ctx.header(
                            "Server-Timing",
                            String.format(Locale.ROOT, "app;dur=%.1f", (System.nanoTime() - start) / 1e6));
                }
            } catch (Exception e) {
                failure = e;
                if (r.kind() == Kind.ACTION && e instanceof Refused refused && r.onRefusal() != null) {
                    r.onRefusal().refused(ctx, who, refused);
                    return;
                }
                if (r.kind() == Kind.ACTION && refusal(e) != null) {
                    // An action that was refused goes back to where it came from, saying why in the person's words.
                    Session.flashTranslated(
                            ctx, true, Reasons.of(I18n.of(ctx), e).text(), e.getMessage());
                    ctx.redirect(back(ctx), HttpStatus.SEE_OTHER);
                    return;
                }
                throw e;
            }
        } catch (HttpResponseException e) {
            throw e; // Javalin's own refusals are answered by the app's mapper, as for any route
        } catch (Exception e) {
            Integer status = refusal(e);
            I18n t = I18n.of(ctx);
            if (status == null) {
                log.error("console {} {} failed", ctx.method(), ctx.path(), e);
                error(
                        c,
                        ctx,
                        null,
                        500,
                        t.text("error.500"),
                        Reasons.untranslated(
                                e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())));
            } else {
                error(
                        c,
                        ctx,
                        Session.of(ctx, c.store()).orElse(null),
                        status,
                        t.text(
                                switch (status) {
                                    case 400 -> "error.400";
                                    case 403 -> "error.403";
                                    case 404 -> "error.404";
                                    default -> "error.409";
                                }),
                        Reasons.of(t, e.getMessage()));
            }
        } finally {
            if (r.kind() == Kind.ACTION) {
                ConsoleAudit.action(c, ctx, r.action(), who, failure);
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

    private static void error(
            ConsoleContext c, Context ctx, Who who, int status, String title, Reasons.Reason message) {
        ctx.status(status);
        c.templates()
                .page(ctx, "error.jte", new Page(title, null, who, null), new Views.ErrorPage(status, title, message));
    }

    /**
     * The language switch: {@code ?to=zh-CN&next=/tasks} remembers the choice for a year and goes back to the page. It
     * needs no login (the log-in page has the switch too) and changes nothing but how pages read.
     */
    static void language(Context ctx, Who ignored) {
        Locale chosen =
                I18n.supported(ctx.queryParam("to")).orElseThrow(() -> new BadRequest("to: one of " + I18n.tags()));
        StringBuilder cookie = new StringBuilder(I18n.LANG_COOKIE)
                .append('=')
                .append(chosen.toLanguageTag())
                .append("; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax");
        if ("https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"))) {
            cookie.append("; Secure");
        }
        ctx.res().addHeader("Set-Cookie", cookie.toString());
        ctx.redirect(localPath(ctx.queryParam("next"), "/"), HttpStatus.SEE_OTHER);
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

    /**
     * Thrown when the logged-in person's role may not do an action. Its message is English, for the audit log; {@code
     * words} says the same in the person's language (null: the message goes through {@link Reasons}).
     */
    static final class Refused extends RuntimeException {
        private final transient Function<I18n, String> words;

        Refused(String message) {
            this(message, null);
        }

        Refused(String message, Function<I18n, String> words) {
            super(message);
            this.words = words;
        }

        /** The refusal in {@code t}'s words. */
        String in(I18n t) {
            return words == null ? Reasons.of(t, getMessage()).text() : words.apply(t);
        }
    }
}
