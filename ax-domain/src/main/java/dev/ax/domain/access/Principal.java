package dev.ax.domain.access;

import java.util.Objects;

/**
 * Who is acting: {@code name} is the person or machine recorded as the actor of what they do, {@code via} how they
 * proved it ({@code token:<name>} or {@code sso}), {@code grants} what they may do.
 */
public record Principal(String name, String via, Grants grants) {
    public static final Principal ANONYMOUS = new Principal("anonymous", "none", Grants.of(Role.PUBLIC));

    public Principal {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(via, "via");
        Objects.requireNonNull(grants, "grants");
    }

    /** A principal with one role everywhere (the scheduler's own actors, tests). */
    public static Principal of(String name, Role role) {
        return new Principal(name, "token:" + name, Grants.of(role));
    }

    public Role roleIn(String team) {
        return grants.roleIn(team);
    }

    public boolean allows(Role needed, String team) {
        return grants.allows(needed, team);
    }
}
