package dev.ax.api;

import java.util.Locale;
import java.util.Optional;

/**
 * Who may call a route. Tokens carry one of VIEWER, OPERATOR, ADMIN, EXECUTOR; PUBLIC is only a
 * route requirement (no token needed). Viewer ⊂ operator ⊂ admin; executor is a side branch for
 * the executor protocol, which admin may also use.
 */
public enum Role {
    PUBLIC, VIEWER, OPERATOR, ADMIN, EXECUTOR;

    /** True if a token with role {@code held} may call a route that requires this role. */
    public boolean admits(Role held) {
        return switch (this) {
            case PUBLIC -> true;
            case VIEWER -> held == VIEWER || held == OPERATOR || held == ADMIN;
            case OPERATOR -> held == OPERATOR || held == ADMIN;
            case ADMIN -> held == ADMIN;
            case EXECUTOR -> held == EXECUTOR || held == ADMIN;
        };
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
