package dev.ax.console;

import dev.ax.api.AuditTrail;
import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Who;
import dev.ax.domain.access.Principal;
import dev.ax.store.AuditStore.Entry;
import dev.ax.store.Json;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's part of the audit log, written like the API's ({@link AuditTrail}, whose {@code target}, {@code note},
 * {@code diff} and {@code team} the pages call to say what the path cannot): one entry after each action a
 * person took on a console form — what it did, or why it was refused or failed — and one per log-in and log-out. The
 * action is named by the API route that does the same ({@code task.pause}), so an entry reads alike whichever way the
 * person came. Values of tokens and secrets never reach an entry: no form is recorded, only what the person was told
 * (with the values of secrets masked) and, for an edit, what the new version changed.
 */
final class ConsoleAudit {
    private static final Logger log = LoggerFactory.getLogger(ConsoleAudit.class);

    private ConsoleAudit() {}

    /**
     * Records an action route after it ran: {@code action} null is the log-out. {@code who} null: nobody was logged
     * in (401). {@code failure} is what refused or broke it, or null when it ran (its page may still answer 400/403/409,
     * as the editor does for a definition it cannot save).
     */
    static void action(ConsoleContext c, Context ctx, Action action, Who who, Exception failure) {
        int status = who == null
                ? 401
                : failure != null ? statusOf(failure) : ctx.statusCode() < 400 ? 200 : ctx.statusCode();
        String message = who == null
                ? "not logged in (no session, or its token was revoked or has expired)"
                : failure != null
                        ? failure.getMessage()
                        : AuditTrail.noteOf(ctx) != null ? AuditTrail.noteOf(ctx) : Session.flashed(ctx);
        String target = AuditTrail.targetOf(ctx) != null
                ? AuditTrail.targetOf(ctx)
                : action == null ? null : Permissions.auditTarget(action, ctx::pathParam);
        Object diff = AuditTrail.diffOf(ctx);
        Principal p = who == null ? Principal.ANONYMOUS : who.principal();
        write(
                c,
                new Entry(
                        p.name(),
                        p.via(),
                        team(c, ctx, action, who, status),
                        ctx.ip(),
                        action == null ? "logout" : Permissions.auditName(action),
                        target,
                        AuditTrail.outcome(status),
                        status,
                        AuditTrail.clip(c.mask().apply(message)),
                        diff == null ? null : Json.write(diff)));
    }

    /** A log-in: who ({@link Principal#ANONYMOUS} when it failed), how it ended, and why, without the token. */
    static void login(ConsoleContext c, Context ctx, Principal p, int status, String message) {
        String target = p.via().startsWith("token:") ? p.via() : null;
        write(
                c,
                new Entry(
                        p.name(),
                        p.via(),
                        null,
                        ctx.ip(),
                        "login",
                        target,
                        AuditTrail.outcome(status),
                        status,
                        AuditTrail.clip(message),
                        null));
    }

    private static String team(ConsoleContext c, Context ctx, Action action, Who who, int status) {
        String named = AuditTrail.teamOf(ctx);
        if (named != null) {
            return named;
        }
        if (action == null || who == null || status == 404) {
            return null;
        }
        try {
            return Access.teamColumn(Access.owners(c, ctx, action));
        } catch (RuntimeException e) {
            return null; // the database refused even this: the entry is still written, without its team
        }
    }

    /**
     * An entry that cannot be written (the database went away after the change committed) is logged, and the person
     * still sees what happened: telling them it failed would have them do it again.
     */
    private static void write(ConsoleContext c, Entry entry) {
        try {
            c.node().audit().record(entry);
        } catch (RuntimeException e) {
            log.error("audit entry of console {} on {} not written: {}", entry.action(), entry.target(), e.toString());
        }
    }

    static int statusOf(Exception e) {
        Integer refused = Console.refusal(e);
        if (refused != null) {
            return refused;
        }
        return e instanceof HttpResponseException h ? h.getStatus() : 500;
    }
}
