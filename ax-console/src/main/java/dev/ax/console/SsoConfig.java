package dev.ax.console;

import dev.ax.domain.access.Grants;
import dev.ax.domain.access.Role;
import dev.ax.domain.task.JsonReader;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Single sign-on for the console with OpenID Connect (authorization code with PKCE), as {@code ax server --oidc-config
 * FILE} sets it:
 *
 * <pre>{@code
 * {"issuer": "https://login.example.com/realms/corp", "clientId": "ax", "clientSecret": "…",
 *  "redirectUri": "https://ax.example.com/login/sso/callback",
 *  "roles": [{"group": "ax-admins", "role": "admin"}, {"group": "data-eng", "team": "data", "role": "operator"}],
 *  "defaultRole": "viewer"}
 * }</pre>
 *
 * A person's grants are the rules their groups match: the highest global role of the rules without a team (else
 * {@code defaultRole}), and per team the highest role of the rules for it. A person whose groups match nothing and with
 * no {@code defaultRole} is not let in.
 *
 * @param redirectUri      where the identity provider sends people back: this server's {@code /login/sso/callback} as
 *                         people reach it, registered with the provider
 * @param usernameClaim    the ID token claim that names the person (recorded as the actor); default {@code preferred_username}
 * @param groupsClaim      the claim listing their groups; default {@code groups}
 * @param sessionLifetime  how long a console session lasts; default 12 hours
 * @param label            the login button's words; default "Sign in with single sign-on"
 */
public record SsoConfig(
        URI issuer,
        String clientId,
        String clientSecret,
        URI redirectUri,
        List<String> scopes,
        String usernameClaim,
        String groupsClaim,
        List<RoleRule> roles,
        Role defaultRole,
        Duration sessionLifetime,
        String label) {
    public static final String CLIENT_SECRET_ENV = "AX_OIDC_CLIENT_SECRET";
    static final Duration DEFAULT_SESSION = Duration.ofHours(12);
    static final Duration MAX_SESSION = Duration.ofDays(30);
    private static final Set<String> FIELDS = Set.of(
            "issuer",
            "clientId",
            "clientSecret",
            "redirectUri",
            "scopes",
            "usernameClaim",
            "groupsClaim",
            "roles",
            "defaultRole",
            "sessionLifetime",
            "label");
    private static final Set<String> RULE_FIELDS = Set.of("group", "team", "role");

    /** One mapping: people in {@code group} get {@code role}, in {@code team} when it is set, else everywhere. */
    public record RoleRule(String group, String team, Role role) {}

    public SsoConfig {
        scopes = List.copyOf(scopes);
        roles = List.copyOf(roles);
    }

    /**
     * Reads the configuration, every problem at once with its field. {@code envSecret} (the value of
     * {@link #CLIENT_SECRET_ENV}, or null) stands in for a {@code clientSecret} the file leaves out, so that the file need
     * not hold it.
     */
    public static SsoConfig parse(Object json, String envSecret) {
        JsonReader in = new JsonReader();
        Map<String, Object> root = json == null ? null : in.object(json, "");
        if (root == null) {
            throw in.hasErrors()
                    ? new ValidationException(in.errors())
                    : new ValidationException("", "the configuration is a JSON object");
        }
        in.rejectUnknown(root, "", FIELDS);
        URI issuer = uri(in, in.required(root, "", "issuer"), "issuer");
        String clientId = in.nonBlank(in.required(root, "", "clientId"), "clientId");
        String secret =
                root.get("clientSecret") != null ? in.nonBlank(root.get("clientSecret"), "clientSecret") : envSecret;
        if (secret == null || secret.isBlank()) {
            in.error("clientSecret", "is required: in the file, or in the environment as " + CLIENT_SECRET_ENV);
        }
        URI redirect = uri(in, in.required(root, "", "redirectUri"), "redirectUri");
        if (redirect != null && !redirect.getPath().endsWith("/login/sso/callback")) {
            in.error(
                    "redirectUri",
                    "must be this server's /login/sso/callback, e.g. https://ax.example.com/login/sso/callback");
        }
        List<String> scopes = new ArrayList<>(List.of("openid", "profile", "email"));
        List<Object> extra = in.array(root.get("scopes"), "scopes");
        if (extra != null) {
            scopes = new ArrayList<>();
            for (int i = 0; i < extra.size(); i++) {
                String s = in.nonBlank(extra.get(i), JsonReader.path("scopes", i));
                if (s != null) {
                    scopes.add(s);
                }
            }
            if (!scopes.contains("openid")) {
                in.error("scopes", "must include openid");
            }
        }
        String username = orDefault(in.nonBlank(root.get("usernameClaim"), "usernameClaim"), "preferred_username");
        String groups = orDefault(in.nonBlank(root.get("groupsClaim"), "groupsClaim"), "groups");
        List<RoleRule> rules = rules(in, root.get("roles"));
        Role defaultRole = root.get("defaultRole") == null ? null : role(in, root.get("defaultRole"), "defaultRole");
        Duration lifetime = DEFAULT_SESSION;
        String life = in.string(root.get("sessionLifetime"), "sessionLifetime");
        if (life != null) {
            try {
                lifetime = Duration.parse(life);
                if (lifetime.isNegative() || lifetime.isZero() || lifetime.compareTo(MAX_SESSION) > 0) {
                    in.error("sessionLifetime", "must be more than zero and at most " + MAX_SESSION.toDays() + " days");
                }
            } catch (DateTimeParseException e) {
                in.error("sessionLifetime", "'" + life + "' is not an ISO-8601 duration such as PT12H");
            }
        }
        String label = orDefault(in.nonBlank(root.get("label"), "label"), "Sign in with single sign-on");
        if (in.hasErrors()) {
            throw new ValidationException(in.errors());
        }
        return new SsoConfig(
                issuer, clientId, secret, redirect, scopes, username, groups, rules, defaultRole, lifetime, label);
    }

    /** What a person with these groups may do; empty when nothing lets them in. */
    public Optional<Grants> grantsFor(Collection<String> groups) {
        Role global = defaultRole;
        Map<String, Role> teams = new LinkedHashMap<>();
        for (RoleRule r : roles) {
            if (!groups.contains(r.group())) {
                continue;
            }
            if (r.team() == null) {
                global = Role.higher(global, r.role());
            } else {
                teams.merge(r.team(), r.role(), Role::higher);
            }
        }
        if (global == null && teams.isEmpty()) {
            return Optional.empty();
        }
        // A person with a team role reads everything, as every viewer does.
        return Optional.of(new Grants(global == null ? Role.VIEWER : global, teams, List.of()));
    }

    /** The teams the rules name, to warn about those that do not exist (yet). */
    public List<String> teamsNamed() {
        return roles.stream()
                .map(RoleRule::team)
                .filter(Objects::nonNull)
                .distinct()
                .toList();
    }

    private static List<RoleRule> rules(JsonReader in, Object value) {
        List<Object> raw = in.array(value, "roles");
        List<RoleRule> rules = new ArrayList<>();
        if (raw == null) {
            return rules;
        }
        for (int i = 0; i < raw.size(); i++) {
            String field = JsonReader.path("roles", i);
            Map<String, Object> m = in.object(raw.get(i), field);
            if (m == null) {
                continue;
            }
            in.rejectUnknown(m, field, RULE_FIELDS);
            String group = in.nonBlank(in.required(m, field, "group"), JsonReader.path(field, "group"));
            String team = m.get("team") == null
                    ? null
                    : TaskDefinitionCodec.name(in, m.get("team"), JsonReader.path(field, "team"));
            Role role = role(in, in.required(m, field, "role"), JsonReader.path(field, "role"));
            if (group != null && role != null) {
                rules.add(new RoleRule(group, team, role));
            }
        }
        return rules;
    }

    private static Role role(JsonReader in, Object value, String field) {
        String s = in.string(value, field);
        if (s == null) {
            return null;
        }
        Optional<Role> role = Role.ofToken(s).filter(Role::isPersonRole);
        if (role.isEmpty()) {
            in.error(field, "'" + s + "' is not a person's role; one of viewer, operator, admin");
        }
        return role.orElse(null);
    }

    private static URI uri(JsonReader in, Object value, String field) {
        String s = in.nonBlank(value, field);
        if (s == null) {
            return null;
        }
        try {
            URI u = new URI(s);
            if (!("https".equals(u.getScheme()) || "http".equals(u.getScheme())) || u.getHost() == null) {
                in.error(field, "must be an http(s) URL with a host");
                return null;
            }
            return u;
        } catch (URISyntaxException e) {
            in.error(field, "is not a URL: " + e.getReason());
            return null;
        }
    }

    private static String orDefault(String s, String dflt) {
        return s == null ? dflt : s;
    }

    /** Never the secret: this may be logged. */
    @Override
    public String toString() {
        return "SsoConfig[issuer=" + issuer + ", clientId=" + clientId + ", redirectUri=" + redirectUri + ", roles="
                + roles.size() + "]";
    }
}
