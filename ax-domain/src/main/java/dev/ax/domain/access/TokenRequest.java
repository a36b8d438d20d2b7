package dev.ax.domain.access;

import dev.ax.domain.task.JsonReader;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A new token, as {@code POST /api/tokens} asks for it: {@code {"name": "alice", "role": "viewer", "teams": {"data":
 * "operator"}, "expiresIn": "P90D"}}, or for an executor {@code {"name": "exec-orders", "role": "executor", "groups":
 * ["orders"]}}.
 *
 * @param owner     the person the token acts for, recorded as the actor of what it does; defaults to {@code name}
 * @param expiresIn how long it works from now; null = until revoked
 */
public record TokenRequest(String name, String owner, Grants grants, Duration expiresIn) {
    /** The longest a token may be made for: beyond that, "until revoked" says what is meant. */
    public static final Duration MAX_LIFETIME = Duration.ofDays(3660);

    private static final Set<String> FIELDS = Set.of("name", "owner", "role", "teams", "groups", "expiresIn");
    private static final int MAX_TEAMS = 100;
    private static final int MAX_GROUPS = 100;

    /** Every problem at once, each with its field; nothing is made of a request with one. */
    public static TokenRequest parse(Object json) {
        JsonReader in = new JsonReader();
        Map<String, Object> root = json == null ? null : in.object(json, "");
        if (root == null) {
            throw in.hasErrors()
                    ? new ValidationException(in.errors())
                    : new ValidationException("", "send {\"name\": …, \"role\": …} as a JSON object");
        }
        in.rejectUnknown(root, "", FIELDS);
        String name = Names.person(in, in.required(root, "", "name"), "name");
        String owner = root.get("owner") == null ? name : Names.person(in, root.get("owner"), "owner");
        Role role = role(in, in.required(root, "", "role"), "role", true);
        Map<String, Role> teams = teams(in, root.get("teams"), role);
        List<String> groups = groups(in, root.get("groups"), role);
        Duration expiresIn = lifetime(in, root.get("expiresIn"));
        if (in.hasErrors()) {
            throw new ValidationException(in.errors());
        }
        return new TokenRequest(name, owner, new Grants(role, teams, groups), expiresIn);
    }

    private static Role role(JsonReader in, Object value, String field, boolean executorToo) {
        String s = in.string(value, field);
        if (s == null) {
            return null;
        }
        Role role = Role.ofToken(s)
                .filter(r -> r.isPersonRole() || (executorToo && r == Role.EXECUTOR))
                .orElse(null);
        if (role == null) {
            in.error(
                    field,
                    "'" + s + "' is not a role; one of viewer, operator, admin" + (executorToo ? ", executor" : ""));
        }
        return role;
    }

    private static Map<String, Role> teams(JsonReader in, Object value, Role role) {
        Map<String, Object> raw = in.object(value, "teams");
        if (raw == null) {
            return Map.of();
        }
        if (role == Role.EXECUTOR) {
            in.error("teams", "an executor's token serves groups, not teams; leave teams out");
            return Map.of();
        }
        if (raw.size() > MAX_TEAMS) {
            in.error("teams", "at most " + MAX_TEAMS + " teams");
            return Map.of();
        }
        Map<String, Role> teams = new LinkedHashMap<>();
        raw.forEach((team, r) -> {
            String field = JsonReader.path("teams", team);
            String name = TaskDefinitionCodec.name(in, team, field);
            Role inTeam = role(in, r, field, false);
            if (name != null && inTeam != null) {
                teams.put(name, inTeam);
            }
        });
        return teams;
    }

    private static List<String> groups(JsonReader in, Object value, Role role) {
        List<Object> raw = in.array(value, "groups");
        if (raw == null) {
            return List.of();
        }
        if (role != null && role != Role.EXECUTOR) {
            in.error("groups", "only an executor's token (role executor) is limited to groups");
            return List.of();
        }
        if (raw.isEmpty() || raw.size() > MAX_GROUPS) {
            in.error("groups", "must name 1 to " + MAX_GROUPS + " executor groups (leave it out for every group)");
            return List.of();
        }
        Set<String> groups = new LinkedHashSet<>();
        for (int i = 0; i < raw.size(); i++) {
            String g = TaskDefinitionCodec.name(in, raw.get(i), JsonReader.path("groups", i));
            if (g != null && !groups.add(g)) {
                in.error(JsonReader.path("groups", i), "'" + g + "' is named twice");
            }
        }
        return new ArrayList<>(groups);
    }

    private static Duration lifetime(JsonReader in, Object value) {
        String s = in.string(value, "expiresIn");
        if (s == null) {
            return null;
        }
        Duration d;
        try {
            d = Duration.parse(s);
        } catch (DateTimeParseException e) {
            in.error("expiresIn", "'" + s + "' is not an ISO-8601 duration such as P90D or PT12H");
            return null;
        }
        if (d.isNegative() || d.isZero() || d.compareTo(MAX_LIFETIME) > 0) {
            in.error(
                    "expiresIn",
                    "must be more than zero and at most " + MAX_LIFETIME.toDays()
                            + " days (leave it out for no expiry)");
            return null;
        }
        return d;
    }
}
