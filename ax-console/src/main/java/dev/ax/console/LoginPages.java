package dev.ax.console;

import dev.ax.console.Session.Who;
import dev.ax.domain.access.Principal;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/** Logging in with an API token, and out. Failed attempts are throttled per client address ({@link LoginThrottle}). */
final class LoginPages {
    private final ConsoleContext c;
    private final LoginThrottle throttle;

    /** The single sign-on button's words; null when the server has no single sign-on. */
    private final String sso;

    LoginPages(ConsoleContext c, LoginThrottle throttle, String sso) {
        this.sso = sso;
        this.c = c;
        this.throttle = throttle;
    }

    void form(Context ctx, Who ignored) {
        String next = Console.localPath(ctx.queryParam("next"), "/");
        c.templates()
                .page(
                        ctx,
                        "login.jte",
                        new Page(I18n.of(ctx).text("page.login"), null, null, Session.takeFlash(ctx)),
                        new Views.Login(next, null, sso));
    }

    /**
     * Checks the token against the API's tokens; executor tokens are for executors only. An address that
     * failed too often is refused before its token is even looked at.
     */
    void login(Context ctx, Who ignored) {
        String next = Console.localPath(ctx.formParam("next"), "/");
        String address = ctx.ip();
        Optional<Instant> blocked = throttle.blockedUntil(address);
        if (blocked.isPresent()) {
            ConsoleAudit.login(
                    c,
                    ctx,
                    Principal.ANONYMOUS,
                    429,
                    "too many failed log-ins from this address; refused until " + blocked.get());
            tooManyFailures(ctx, next, blocked.get());
            return;
        }
        String token = ctx.formParam("token");
        Who who = token == null || token.isBlank()
                ? null
                : Session.lookup(c.store(), token.strip()).orElse(null);
        if (who == null) {
            ConsoleAudit.login(
                    c, ctx, Principal.ANONYMOUS, 401, "a token that is not known, revoked, expired or an executor's");
            throttle.failed(address);
            ctx.status(401);
            I18n t = I18n.of(ctx);
            c.templates()
                    .page(
                            ctx,
                            "login.jte",
                            new Page(t.text("page.login"), null, null, null),
                            new Views.Login(next, t.text("login.unknown_token"), sso));
            return;
        }
        Session.login(ctx, token.strip());
        ConsoleAudit.login(c, ctx, who.principal(), 200, "logged in with a token");
        ctx.redirect(next, HttpStatus.SEE_OTHER);
    }

    void logout(Context ctx, Who who) {
        Session.logout(ctx, c.store());
        ctx.redirect("/login", HttpStatus.SEE_OTHER);
    }

    private static String minutes(Duration d, I18n t) {
        return d.toSeconds() % 60 == 0 ? t.text("login.minutes", d.toMinutes()) : t.duration(d);
    }

    private void tooManyFailures(Context ctx, String next, Instant until) {
        Duration wait = Duration.between(throttle.clock().now(), until);
        long seconds =
                Math.max(1, wait.plusMillis(999).truncatedTo(ChronoUnit.SECONDS).toSeconds());
        ctx.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", Long.toString(seconds));
        I18n t = I18n.of(ctx);
        c.templates()
                .page(
                        ctx,
                        "login.jte",
                        new Page(t.text("page.login"), null, null, null),
                        new Views.Login(
                                next,
                                t.text(
                                        "login.too_many",
                                        throttle.maxFailures(),
                                        minutes(throttle.window(), t),
                                        t.time(until),
                                        t.duration(Duration.ofSeconds(seconds))),
                                sso));
    }
}
