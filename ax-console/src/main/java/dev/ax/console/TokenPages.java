package dev.ax.console;

import dev.ax.api.AuditTrail;
import dev.ax.console.Fmt.Time;
import dev.ax.console.Permissions.Action;
import dev.ax.console.Reasons.FieldReason;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.MadeToken;
import dev.ax.console.Views.Option;
import dev.ax.console.Views.TokenForm;
import dev.ax.console.Views.TokenItem;
import dev.ax.domain.access.Role;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.ConflictException;
import dev.ax.scheduler.Tokens.Made;
import dev.ax.store.TokenStore.TokenRow;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Tokens: every token for a global admin, with the form that makes one (the token is shown on that one answer and
 * never again: only its hash is kept), and "My tokens", everyone's own. A token is revoked at once; the console
 * sessions it opened end with it, since each request looks the session's token up again.
 */
final class TokenPages {
    private static final List<String> ROLES = List.of("viewer", "operator", "admin", "executor");
    /** The lifetimes the form offers, as the API takes them (ISO-8601); "" = until revoked. */
    private static final List<String> LIFETIMES = List.of("", "PT12H", "P1D", "P7D", "P30D", "P90D", "P365D");

    private final ConsoleContext c;

    TokenPages(ConsoleContext c) {
        this.c = c;
    }

    /** The list of every token is for who may make them; the route's check covers the form itself. */
    void list(Context ctx, Who who) {
        Access.requireEverywhere(who, Action.CREATE_TOKEN);
        render(ctx, who, 200, TokenForm.EMPTY, List.of(), null);
    }

    void mine(Context ctx, Who who) {
        Instant now = c.clock().now();
        List<TokenItem> items = c.node().tokens().list(who.name()).stream()
                .map(t -> item(t, who, now, I18n.of(ctx)))
                .toList();
        c.templates()
                .page(
                        ctx,
                        "mytokens.jte",
                        new Page(I18n.of(ctx).text("page.my_tokens"), "my-tokens", who, Session.takeFlash(ctx)),
                        new Views.Tokens(items, null, List.of(), List.of(), List.of(), null));
    }

    void create(Context ctx, Who who) {
        TokenForm form = new TokenForm(
                field(ctx, "name"),
                field(ctx, "owner"),
                field(ctx, "role"),
                field(ctx, "teams"),
                field(ctx, "groups"),
                field(ctx, "expiresIn"));
        Made made;
        try {
            made = c.node().tokens().create(request(form), who.name());
        } catch (ValidationException e) {
            AuditTrail.note(ctx, e.getMessage());
            render(ctx, who, 400, form, Reasons.fields(I18n.of(ctx), e.errors()), null);
            return;
        } catch (ConflictException e) {
            AuditTrail.note(ctx, e.getMessage());
            render(
                    ctx,
                    who,
                    409,
                    form,
                    Reasons.fields(I18n.of(ctx), List.of(new FieldError("name", e.getMessage()))),
                    null);
            return;
        }
        TokenRow row = made.row();
        String grants = row.grants().describe();
        AuditTrail.target(ctx, "token:" + row.name());
        // What the API notes for the same; the token itself never reaches the entry.
        AuditTrail.note(
                ctx,
                "for " + row.owner() + ": " + grants + (row.expiresAt() == null ? "" : "; expires " + row.expiresAt()));
        render(ctx, who, 200, TokenForm.EMPTY, List.of(), new MadeToken(row.name(), row.owner(), grants, made.token()));
    }

    /** An admin revokes any token, everyone else only their own: the API's rule for {@code DELETE /api/tokens/{name}}. */
    void revoke(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        if (!who.may(Role.ADMIN, null)) {
            TokenRow t = c.node().tokens().get(name);
            if (!t.owner().equals(who.name())) {
                String owner = t.owner();
                throw new Console.Refused(
                        who.name() + " may revoke only their own tokens; " + name + " is " + owner
                                + "'s (an admin revokes anyone's)",
                        words -> words.text("refused.own_tokens_only", who.name(), name, owner));
            }
        }
        TokenRow revoked = c.node().tokens().revoke(name, who.name());
        boolean own = who.principal().via().equals("token:" + name);
        Session.flash(ctx, false, own ? "flash.token_revoked_own" : "flash.token_revoked", revoked.owner(), name);
        ctx.redirect(Console.localPath(ctx.formParam("back"), "/my-tokens"), HttpStatus.SEE_OTHER);
    }

    private void render(Context ctx, Who who, int status, TokenForm form, List<FieldReason> errors, MadeToken made) {
        Instant now = c.clock().now();
        I18n t = I18n.of(ctx);
        List<TokenItem> items = c.node().tokens().list(null).stream()
                .map(row -> item(row, who, now, t))
                .toList();
        List<Option> roles =
                ROLES.stream().map(r -> new Option(r, r, r.equals(form.role()))).toList();
        List<Option> lifetimes = LIFETIMES.stream()
                .map(l -> new Option(
                        l, t.text(l.isEmpty() ? "lifetime.never" : "lifetime." + l), l.equals(form.expiresIn())))
                .toList();
        ctx.status(status);
        c.templates()
                .page(
                        ctx,
                        "tokens.jte",
                        new Page(t.text("page.tokens"), "tokens", who, Session.takeFlash(ctx)),
                        new Views.Tokens(items, form, roles, lifetimes, errors, made));
    }

    private static TokenItem item(TokenRow t, Who who, Instant now, I18n words) {
        String teams = t.teams().entrySet().stream()
                .map(e -> words.text("tokens.role_in", e.getValue().wireName(), e.getKey()))
                .collect(Collectors.joining(", "));
        return new TokenItem(
                t.name(),
                t.owner(),
                t.role() == null ? words.text("tokens.unknown_role") : t.role().wireName(),
                teams,
                String.join(", ", t.groups()),
                t.createdBy(),
                Time.of(t.createdAt()),
                Time.of(t.expiresAt()),
                t.expiredAt(now),
                Time.of(t.lastUsedAt()),
                who.principal().via().equals("token:" + t.name()));
    }

    /**
     * The form as the API's request body: {@code teams} is "team=role" per line (or comma), {@code groups} names
     * separated by commas or spaces; what is left empty is left out, so the API's defaults apply.
     */
    static Map<String, Object> request(TokenForm f) {
        Map<String, Object> body = new LinkedHashMap<>();
        putIfSet(body, "name", f.name());
        putIfSet(body, "owner", f.owner());
        putIfSet(body, "role", f.role());
        Map<String, Object> teams = new LinkedHashMap<>();
        List<FieldError> errors = new ArrayList<>();
        for (String part : f.teams().split("[,\\n]")) {
            String line = part.strip();
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0 || eq == line.length() - 1) {
                errors.add(new FieldError("teams", "'" + line + "': write team=role, e.g. data=operator"));
            } else {
                teams.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        if (!errors.isEmpty()) {
            throw new ValidationException(errors);
        }
        if (!teams.isEmpty()) {
            body.put("teams", teams);
        }
        List<String> groups = Arrays.stream(f.groups().split("[,\\s]+"))
                .filter(g -> !g.isBlank())
                .toList();
        if (!groups.isEmpty()) {
            body.put("groups", groups);
        }
        putIfSet(body, "expiresIn", f.expiresIn());
        return body;
    }

    private static void putIfSet(Map<String, Object> body, String key, String value) {
        if (!value.isBlank()) {
            body.put(key, value.strip());
        }
    }

    private static String field(Context ctx, String name) {
        String v = ctx.formParam(name);
        return v == null ? "" : v;
    }
}
