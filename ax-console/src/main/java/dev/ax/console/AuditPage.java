package dev.ax.console;

import dev.ax.api.AuditQuery;
import dev.ax.console.Fmt.Time;
import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.AuditItem;
import dev.ax.console.Views.AuditLog;
import dev.ax.console.Views.DiffItem;
import dev.ax.console.Views.Option;
import dev.ax.domain.access.Role;
import dev.ax.domain.task.ValidationException;
import dev.ax.store.AuditStore.AuditRow;
import dev.ax.store.Json;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The audit log with the API's filters ({@code GET /api/audit}): actor, team, target (whole or a kind, {@code task:}),
 * from, to, and "older" pages. A global admin reads all of it; a team's admin that team's entries only.
 */
final class AuditPage {
    static final int PAGE_SIZE = 50;

    private final ConsoleContext c;

    AuditPage(ConsoleContext c) {
        this.c = c;
    }

    void show(Context ctx, Who who) {
        String team = blank(ctx.queryParam("team"));
        // The API's rule for GET /api/audit: admin everywhere, or admin of the team asked for.
        Access.require(who, Action.READ_AUDIT, Optional.of(Access.teamsOf(team)));
        String actor = blank(ctx.queryParam("actor"));
        String target = blank(ctx.queryParam("target"));
        String from = blank(ctx.queryParam("from"));
        String to = blank(ctx.queryParam("to"));
        long before = parseBefore(ctx.queryParam("before"));
        List<AuditRow> rows =
                c.node().audit().list(AuditQuery.filter(actor, team, target, from, to, before, PAGE_SIZE + 1));
        boolean more = rows.size() > PAGE_SIZE;
        List<AuditRow> page = more ? rows.subList(0, PAGE_SIZE) : rows;
        List<AuditItem> items = page.stream().map(this::item).toList();
        String older = null;
        if (more) {
            Map<String, String> q = new LinkedHashMap<>();
            q.put("actor", actor);
            q.put("team", team);
            q.put("target", target);
            q.put("from", from);
            q.put("to", to);
            q.put("before", Long.toString(page.getLast().id()));
            older = query(q);
        }
        c.templates()
                .page(
                        ctx,
                        "audit.jte",
                        new Page(I18n.of(ctx).text("page.audit"), "audit", who, Session.takeFlash(ctx)),
                        new AuditLog(actor, team, target, from, to, teamChoices(who, team), items, older));
    }

    /** A team's admin chooses among their teams; a global admin types any (no choices). */
    private static List<Option> teamChoices(Who who, String team) {
        if (who.may(Role.ADMIN, null)) {
            return List.of();
        }
        List<Option> out = new ArrayList<>();
        who.principal().grants().teams().forEach((t, role) -> {
            if (Role.ADMIN.admits(role)) {
                out.add(new Option(t, t, t.equals(team)));
            }
        });
        return out;
    }

    private AuditItem item(AuditRow r) {
        var e = r.entry();
        List<DiffItem> diff = new ArrayList<>();
        if (e.diff() != null) {
            for (Object d : Json.readList(e.diff())) {
                if (d instanceof Map<?, ?> m) {
                    diff.add(new DiffItem(
                            String.valueOf(m.get("path")), Fmt.jsonValue(m.get("from")), Fmt.jsonValue(m.get("to"))));
                }
            }
        }
        return new AuditItem(
                r.id(),
                Time.of(r.at()),
                e.actor(),
                e.via(),
                e.team(),
                e.address(),
                e.action(),
                e.target(),
                href(e.target()),
                e.outcome(),
                e.status(),
                e.message() == null ? null : c.mask().apply(e.message()),
                diff);
    }

    /** The console page of what an entry acted on, when it has one. */
    static String href(String target) {
        if (target == null) {
            return null;
        }
        int colon = target.indexOf(':');
        if (colon < 0) {
            return null;
        }
        String kind = target.substring(0, colon);
        String key = URLEncoder.encode(target.substring(colon + 1), StandardCharsets.UTF_8);
        return switch (kind) {
            case "task" -> "/tasks/" + key;
            case "run" -> "/runs/" + key;
            case "team" -> "/teams/" + key;
            case "workflow-run" -> "/workflow-runs/" + key;
            default -> null;
        };
    }

    private static long parseBefore(String s) {
        if (s == null || s.isBlank()) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new ValidationException("before", "not a page this log gave");
        }
    }

    private static String blank(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static String query(Map<String, String> q) {
        StringBuilder sb = new StringBuilder();
        q.forEach((k, v) -> {
            if (v != null) {
                sb.append(sb.isEmpty() ? "" : "&")
                        .append(k)
                        .append('=')
                        .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
            }
        });
        return sb.toString();
    }
}
