package dev.ax.console;

import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Flash;
import dev.ax.console.Session.Who;

/**
 * What every page's frame needs: its title, the navigation entry to mark, who is looking (null on
 * the login page) with the form field that proves a POST came from a page of this session, and
 * the message left by the previous action.
 *
 * @param section the navigation entry to mark as current: dashboard, tasks, runs, workflows, executors, tokens,
 *                teams, my-tokens, audit, health
 */
public record Page(String title, String section, Who who, Flash flash) {
    public String csrf() {
        return who == null ? "" : who.csrf();
    }

    /**
     * True when this person may do {@code action} on something of {@code team} (null: of no team, or nothing of a
     * team's, such as tokens); what they may not do is not offered. The server checks again when it is done.
     */
    public boolean may(Action action, String team) {
        return who != null && who.may(Permissions.required(action), team);
    }

    /** True when this person may do {@code action} everywhere or in one of their teams (a "New task" that must name it). */
    public boolean mayInSomeTeam(Action action) {
        return who != null && who.mayInSomeTeam(Permissions.required(action));
    }

    public String userLine() {
        return who == null ? "" : who.name() + " (" + who.principal().grants().describe() + ")";
    }
}
