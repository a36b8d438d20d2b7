package dev.ax.console;

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
 * The console's part of the audit log, written like the API's ({@code AuditTrail}): one entry after each action a
 * person took on a console form — what it did, or why it was refused or failed — and one per log-in and log-out. The
 * action is named by the API route that does the same ({@code task.pause}), so an entry reads alike whichever way the
 * person came. Values of tokens and secrets never reach an entry: no form is recorded, only what the person was told
 * (with the values of secrets masked) and, for an edit, what the new version changed.
 */
final class ConsoleAudit {
    private static final Logger log = LoggerFactory.getLogger(ConsoleAudit.class);
    private static final String TARGET = "ax.console.audit.target";
    private static final String NOTE = "ax.console.audit.note";
    private static final String DIFF = "ax.console.audit.diff";
    private static final String TEAM = "ax.console.audit.team";
    private static final int MAX_MESSAGE = 2000;

    private ConsoleAudit() {
    }

    /** What the action acted on, when its path does not say ({@code task:nightly} for a new task). */
    static void target(Context ctx, String target) {
        ctx.attribute(TARGET, target);
    }

    /** What came of it, when the message shown to the person is not the word for it. Never a secret or a token. */
    static void note(Context ctx, String note) {
        ctx.attribute(NOTE, note);
    }

    /** What an edit changed, path by path (the version's diff). */
    static void diff(Context ctx, Object diff) {
        ctx.attribute(DIFF, diff);
    }

    /** The team the action was for, when its target's scope does not find it (a team made or deleted). */
    static void team(Context ctx, String team) {
        ctx.attribute(TEAM, team);
    }

    /**
     * Records an action route after it ran: {@code action} null is the log-out. {@code who} null: nobody was logged
     * in (401). {@code failure} is what refused or broke it, or null when it ran (its page may still answer 400/403/409,
     * as the editor does for a definition it cannot save).
     */
    static void action(ConsoleContext c, Context ctx, Action action, Who who, Exception failure) {
        int status = who == null ? 401 : failure != null ? statusOf(failure) : ctx.statusCode() < 400 ? 200 : ctx.statusCode();
        String message = who == null ? "not logged in (no session, or its token was revoked or has expired)"
                : failure != null ? failure.getMessage() : ctx.attribute(NOTE) != null ? ctx.attribute(NOTE) : Session.flashed(ctx);
        String target = ctx.attribute(TARGET) != null ? ctx.attribute(TARGET)
                : action == null ? null : Permissions.auditTarget(action, ctx::pathParam);
        Object diff = ctx.attribute(DIFF);
        Principal p = who == null ? Principal.ANONYMOUS : who.principal();
        write(c, new Entry(p.name(), p.via(), team(c, ctx, action, who, status), ctx.ip(),
                action == null ? "logout" : Permissions.auditName(action), target, outcome(status), status,
                clip(c.mask().apply(message)), diff == null ? null : Json.write(diff)));
    }

    /** A log-in: who ({@link Principal#ANONYMOUS} when it failed), how it ended, and why, without the token. */
    static void login(ConsoleContext c, Context ctx, Principal p, int status, String message) {
        String target = p.via().startsWith("token:") ? p.via() : null;
        write(c, new Entry(p.name(), p.via(), null, ctx.ip(), "login", target, outcome(status), status, clip(message), null));
    }

    private static String team(ConsoleContext c, Context ctx, Action action, Who who, int status) {
        String named = ctx.attribute(TEAM);
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

    static String outcome(int status) {
        return status < 400 ? "ok" : status < 500 ? "refused" : "failed";
    }

    private static String clip(String s) {
        return s == null || s.length() <= MAX_MESSAGE ? s : s.substring(0, MAX_MESSAGE) + "…";
    }
}
