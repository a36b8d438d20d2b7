package dev.ax.console;

import dev.ax.console.Session.Who;
import dev.ax.console.SsoClient.Begun;
import dev.ax.console.SsoClient.Identity;
import dev.ax.console.SsoClient.SsoException;
import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Names;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.store.SessionStore.PendingLogin;
import dev.ax.store.Store;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;

/**
 * Signing in with the company's identity provider (OpenID Connect, authorization code with PKCE). {@code /login/sso}
 * sends the browser to the provider with a fresh state, nonce and code challenge, kept in the database so that any
 * node may receive the answer, each usable once and for ten minutes; {@code /login/sso/callback} takes the answer,
 * exchanges the code, checks the ID token, maps the person's groups to AX roles ({@link SsoConfig#grantsFor}) and opens
 * a console session. Every sign-in, and every refused one, is audited.
 */
final class SsoPages {
    static final long PENDING_MAX_MILLIS = 10 * 60_000L;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final ConsoleContext c;
    private final SsoConfig config;
    private final SsoClient client;

    SsoPages(ConsoleContext c, SsoConfig config) {
        this.c = c;
        this.config = config;
        this.client = new SsoClient(config);
    }

    String label() {
        return config.label();
    }

    void begin(Context ctx, Who ignored) {
        String next = Console.localPath(ctx.queryParam("next"), "/");
        Begun b;
        try {
            b = client.begin();
        } catch (SsoException e) {
            refuse(ctx, 502, "anonymous", e.getMessage(), next);
            return;
        }
        Store store = c.store();
        store.tx(tx -> {
            store.sessions().begin(tx, b.state(), b.verifier(), b.nonce(), next);
            return null;
        });
        ctx.redirect(b.authorizeUri().toString(), HttpStatus.SEE_OTHER);
    }

    void callback(Context ctx, Who ignored) {
        String error = ctx.queryParam("error");
        String state = ctx.queryParam("state");
        String code = ctx.queryParam("code");
        if (error != null) {
            String description = ctx.queryParam("error_description");
            refuse(
                    ctx,
                    401,
                    "anonymous",
                    "the identity provider did not sign you in: " + error
                            + (description == null ? "" : " (" + description + ")"),
                    "/");
            return;
        }
        Store store = c.store();
        Optional<PendingLogin> pending = state == null || code == null
                ? Optional.empty()
                : store.tx(tx -> store.sessions().take(tx, state, PENDING_MAX_MILLIS));
        if (pending.isEmpty()) {
            refuse(
                    ctx,
                    400,
                    "anonymous",
                    "this sign-in was already used, took longer than ten minutes, or did not start here; start again",
                    "/");
            return;
        }
        PendingLogin p = pending.get();
        Identity who;
        try {
            who = client.finish(code, p.verifier(), p.nonce());
        } catch (SsoException e) {
            refuse(ctx, 401, "anonymous", e.getMessage(), p.nextPath());
            return;
        }
        if (!Names.isPerson(who.username())) {
            refuse(
                    ctx,
                    403,
                    "anonymous",
                    "your name at the identity provider ('" + who.username() + "') is not one AX records;"
                            + " set usernameClaim in --oidc-config to a plain one",
                    p.nextPath());
            return;
        }
        Optional<Grants> grants = config.grantsFor(who.groups());
        if (grants.isEmpty()) {
            refuse(
                    ctx,
                    403,
                    who.username(),
                    who.username() + " has no role in AX: none of your groups ("
                            + (who.groups().isEmpty() ? "none" : String.join(", ", who.groups()))
                            + ") is mapped to one; ask an admin",
                    p.nextPath());
            return;
        }
        String id = newSessionId();
        store.tx(tx -> {
            store.sessions()
                    .create(
                            tx,
                            id,
                            who.username(),
                            Session.grantsJson(grants.get()),
                            config.sessionLifetime().toMillis());
            return null;
        });
        Session.loginSso(ctx, id);
        audit(
                ctx,
                who.username(),
                200,
                "signed in with single sign-on; groups "
                        + (who.groups().isEmpty() ? "none" : String.join(", ", who.groups())));
        ctx.redirect(p.nextPath(), HttpStatus.SEE_OTHER);
    }

    private void refuse(Context ctx, int status, String actor, String message, String next) {
        audit(ctx, actor, status, message);
        ctx.status(status);
        I18n t = I18n.of(ctx);
        c.templates()
                .page(
                        ctx,
                        "login.jte",
                        new Page(t.text("page.login"), null, null, null),
                        new Views.Login(next, Reasons.of(t, message).text(), config.label()));
    }

    private void audit(Context ctx, String actor, int status, String message) {
        ConsoleAudit.login(c, ctx, new Principal(actor, "sso", Grants.of(Role.PUBLIC)), status, message);
    }

    private static String newSessionId() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
