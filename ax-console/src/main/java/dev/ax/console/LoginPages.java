package dev.ax.console;

import dev.ax.console.Session.Who;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;

/** Logging in with an API token, and out. */
final class LoginPages {
    private final ConsoleContext c;

    LoginPages(ConsoleContext c) {
        this.c = c;
    }

    void form(Context ctx, Who ignored) {
        String next = Console.localPath(ctx.queryParam("next"), "/");
        c.templates().page(ctx, "login.jte", new Page("Log in", null, null, Session.takeFlash(ctx)), new Views.Login(next, null));
    }

    /** Checks the token against the API's tokens; executor tokens are for executors only. */
    void login(Context ctx, Who ignored) {
        String token = ctx.formParam("token");
        String next = Console.localPath(ctx.formParam("next"), "/");
        Who who = token == null || token.isBlank() ? null : Session.lookup(c.store(), token.strip()).orElse(null);
        if (who == null) {
            ctx.status(401);
            c.templates().page(ctx, "login.jte", new Page("Log in", null, null, null),
                    new Views.Login(next, "That token is not known (executor tokens cannot log in to the console)."));
            return;
        }
        Session.login(ctx, token.strip());
        ctx.redirect(next, HttpStatus.SEE_OTHER);
    }

    void logout(Context ctx, Who who) {
        Session.logout(ctx);
        ctx.redirect("/login", HttpStatus.SEE_OTHER);
    }
}
