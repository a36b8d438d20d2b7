package dev.ax.domain.access;

import java.util.Locale;
import java.util.Optional;

/**
 * What a token or a person may do. Viewer ⊂ operator ⊂ admin; executor is a side branch for the
 * executor protocol, which admin may also use. PUBLIC is only a route's requirement (no token needed),
 * never held.
 */
public enum Role {
    PUBLIC,
    VIEWER,
    OPERATOR,
    ADMIN,
    EXECUTOR;

    /** True if a holder of {@code held} may do what needs this role. */
    public boolean admits(Role held) {
        if (held == null) {
            return this == PUBLIC;
        }
        return switch (this) {
            case PUBLIC -> true;
            case VIEWER -> held == VIEWER || held == OPERATOR || held == ADMIN;
            case OPERATOR -> held == OPERATOR || held == ADMIN;
            case ADMIN -> held == ADMIN;
            case EXECUTOR -> held == EXECUTOR || held == ADMIN;
        };
    }

    /** The higher of two roles of the viewer ⊂ operator ⊂ admin line; {@code null} counts as none. */
    public static Role higher(Role a, Role b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return a.admits(b) ? b : a;
    }

    /** True for the roles a person can hold in a team: viewer, operator, admin. */
    public boolean isPersonRole() {
        return this == VIEWER || this == OPERATOR || this == ADMIN;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role stored with a token ("admin", "viewer", ...); empty for anything else. */
    public static Optional<Role> ofToken(String stored) {
        if (stored == null) {
            return Optional.empty();
        }
        for (Role r : values()) {
            if (r != PUBLIC && r.wireName().equals(stored.toLowerCase(Locale.ROOT))) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }
}
