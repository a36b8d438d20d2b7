package dev.ax.console;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Principal;
import dev.ax.domain.access.Role;
import dev.ax.store.Json;
import dev.ax.store.Store;
import io.javalin.http.Context;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who is looking: the console's login is the API token itself, kept in an HttpOnly,
 * SameSite=Strict cookie and checked against the same token table as the API on every request
 * (so revoking a token logs its sessions out at once).
 *
 * <p>CSRF: SameSite=Strict already keeps other sites' forms from carrying the cookie; as a second
 * lock every POST must also carry a field that only a page rendered for this session contains:
 * an HMAC of a fixed label keyed by the session's token. A page of another origin can neither read
 * the cookie nor compute the field, and every node of a cluster computes the same value.
 */
public final class Session {
    public static final String COOKIE = "ax_session";
    public static final String CSRF_FIELD = "csrf";
    /** A cookie of a single sign-on session starts with this; any other holds an API token. */
    static final String SSO_PREFIX = "sso.";

    static final String FLASH_COOKIE = "ax_flash";
    private static final String FLASHED = "ax.console.flashed";
    private static final byte[] CSRF_LABEL = "ax-console-csrf-v1".getBytes(StandardCharsets.UTF_8);

    private Session() {}

    /** A logged-in person: {@code name} is recorded as the actor of what they do; {@code principal} says what they may. */
    public record Who(Principal principal, String csrf) {
        public String name() {
            return principal.name();
        }

        /** Their role everywhere. */
        public Role role() {
            return principal.grants().role();
        }

        /** True if this person may, on something of {@code team} (null: of no team), what needs {@code required}. */
        public boolean may(Role required, String team) {
            return principal.allows(required, team);
        }

        /** True if this person may what needs {@code required} on something: everywhere, or in one of their teams. */
        public boolean mayInSomeTeam(Role required) {
            return principal.allows(required, null) || principal.grants().mayDependOnTeam(required);
        }
    }

    /** The person behind the request's cookie, if it holds a token that still exists and is not an executor's. */
    public static Optional<Who> of(Context ctx, Store store) {
        String raw = ctx.cookie(COOKIE);
        if (raw == null || raw.isBlank()) {
            return Optional.empty();
        }
        String value = URLDecoder.decode(raw, StandardCharsets.UTF_8);
        if (value.startsWith(SSO_PREFIX)) {
            String id = value.substring(SSO_PREFIX.length());
            return store.tx(tx -> store.sessions().find(tx, id))
                    .map(s -> new Who(new Principal(s.person(), "sso", grantsOf(s.grants())), csrf(value)));
        }
        return lookup(store, value);
    }

    /** Starts a single sign-on session: the cookie holds its random id, the database its hash and the person's grants. */
    static void loginSso(Context ctx, String id) {
        setCookie(ctx, COOKIE, URLEncoder.encode(SSO_PREFIX + id, StandardCharsets.UTF_8), -1);
    }

    /** The grants of a single sign-on session, as stored with it. */
    static String grantsJson(Grants g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", g.role().wireName());
        Map<String, String> teams = new LinkedHashMap<>();
        g.teams().forEach((team, role) -> teams.put(team, role.wireName()));
        m.put("teams", teams);
        return Json.write(m);
    }

    static Grants grantsOf(String json) {
        Map<String, Object> m = Json.readMap(json);
        Role role = Role.ofToken(String.valueOf(m.get("role")))
                .filter(Role::isPersonRole)
                .orElse(Role.VIEWER);
        Map<String, Role> teams = new LinkedHashMap<>();
        if (m.get("teams") instanceof Map<?, ?> t) {
            t.forEach((team, r) -> Role.ofToken(String.valueOf(r))
                    .filter(Role::isPersonRole)
                    .ifPresent(v -> teams.put(String.valueOf(team), v)));
        }
        return new Grants(role, teams, List.of());
    }

    static Optional<Who> lookup(Store store, String token) {
        return store.tx(tx -> store.tokens()
                        .find(tx, token)
                        .filter(row -> row.role() != null && row.role() != Role.EXECUTOR && !row.expiredAt(tx.now())))
                .map(row -> new Who(new Principal(row.owner(), "token:" + row.name(), row.grants()), csrf(token)));
    }

    /** Starts a session: the cookie holds the token; scripts cannot read it and other sites cannot send it. */
    static void login(Context ctx, String token) {
        setCookie(ctx, COOKIE, URLEncoder.encode(token, StandardCharsets.UTF_8), -1);
    }

    /** Ends the session: the cookie goes, and a single sign-on session's row with it (its id would work no more anyway). */
    static void logout(Context ctx, Store store) {
        String raw = ctx.cookie(COOKIE);
        String value = raw == null ? "" : URLDecoder.decode(raw, StandardCharsets.UTF_8);
        if (value.startsWith(SSO_PREFIX)) {
            store.tx(tx -> {
                store.sessions().delete(tx, value.substring(SSO_PREFIX.length()));
                return null;
            });
        }
        setCookie(ctx, COOKIE, "", 0);
    }

    /** True when the form's CSRF field matches the session (compared in constant time). */
    static boolean csrfValid(Context ctx, Who who) {
        String sent = ctx.formParam(CSRF_FIELD);
        return sent != null
                && MessageDigest.isEqual(
                        sent.getBytes(StandardCharsets.UTF_8), who.csrf().getBytes(StandardCharsets.UTF_8));
    }

    static String csrf(String token) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(token.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(CSRF_LABEL));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    // ---- flash: one message shown on the next page, after a redirect ----------------------

    /** A message for the next page: {@code error} false = it worked, true = it was refused. */
    public record Flash(boolean error, String message) {}

    /**
     * A message for the next page in the person's words ({@code shown}), recorded in the audit log in English
     * ({@code english}): the log reads alike whoever did what in which language.
     */
    static void flashTranslated(Context ctx, boolean error, String shown, String english) {
        ctx.attribute(FLASHED, english);
        setCookie(ctx, FLASH_COOKIE, URLEncoder.encode((error ? "E" : "I") + shown, StandardCharsets.UTF_8), -1);
    }

    /** A message by its key: shown in the person's language, recorded in English. */
    static void flash(Context ctx, boolean error, String key, Object... values) {
        flashTranslated(
                ctx, error, I18n.of(ctx).text(key, values), I18n.english().text(key, values));
    }

    /** The message this request left for the next page, if any: what the person was told an action did (for its audit entry). */
    static String flashed(Context ctx) {
        return ctx.attribute(FLASHED);
    }

    /** Reads and clears the flash message, if any. */
    static Flash takeFlash(Context ctx) {
        String raw = ctx.cookie(FLASH_COOKIE);
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        setCookie(ctx, FLASH_COOKIE, "", 0);
        String text = URLDecoder.decode(raw, StandardCharsets.UTF_8);
        return text.isEmpty() ? null : new Flash(text.charAt(0) == 'E', text.substring(1));
    }

    /** {@code maxAge} -1 = until the browser closes, 0 = delete. Secure when the request came over HTTPS. */
    private static void setCookie(Context ctx, String name, String value, int maxAge) {
        StringBuilder c =
                new StringBuilder(name).append('=').append(value).append("; Path=/; HttpOnly; SameSite=Strict");
        if (maxAge >= 0) {
            c.append("; Max-Age=").append(maxAge);
        }
        if ("https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"))) {
            c.append("; Secure");
        }
        ctx.res().addHeader("Set-Cookie", c.toString());
    }
}
