package dev.ax.console;

import dev.ax.api.AuditTrail;
import dev.ax.console.Fmt.Time;
import dev.ax.console.Reasons.FieldReason;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.MemberItem;
import dev.ax.console.Views.TeamDetail;
import dev.ax.console.Views.TeamItem;
import dev.ax.console.Views.Teams;
import dev.ax.domain.access.Role;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.ConflictException;
import dev.ax.store.Store;
import dev.ax.store.TeamStore.TeamRow;
import dev.ax.store.TokenStore.TokenRow;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Teams: the list and a team's page (its tasks, workflows, and the tokens with a role in it) for every viewer; making
 * and deleting teams for a global admin, through the scheduler's {@code Teams} like the API.
 */
final class TeamPages {
    private final ConsoleContext c;

    TeamPages(ConsoleContext c) {
        this.c = c;
    }

    void list(Context ctx, Who who) {
        render(ctx, who, 200, "", "", List.of());
    }

    void create(Context ctx, Who who) {
        String name = field(ctx, "name");
        String description = field(ctx, "description");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name.strip());
        if (!description.isBlank()) {
            body.put("description", description.strip());
        }
        try {
            TeamRow t = c.node().teams().create(body, who.name());
            AuditTrail.target(ctx, "team:" + t.name());
            AuditTrail.team(ctx, t.name());
            Session.flash(ctx, false, "flash.team_created", t.name());
            ctx.redirect("/teams/" + t.name(), HttpStatus.SEE_OTHER);
        } catch (ValidationException e) {
            AuditTrail.note(ctx, e.getMessage());
            render(ctx, who, 400, name, description, Reasons.fields(I18n.of(ctx), e.errors()));
        } catch (ConflictException e) {
            AuditTrail.note(ctx, e.getMessage());
            render(
                    ctx,
                    who,
                    409,
                    name,
                    description,
                    Reasons.fields(I18n.of(ctx), List.of(new FieldError("name", e.getMessage()))));
        }
    }

    void show(Context ctx, Who who) {
        TeamRow t = c.node().teams().get(ctx.pathParam("name"));
        Store store = c.store();
        TeamDetail view = store.tx(tx -> {
            List<MemberItem> members = new ArrayList<>();
            for (TokenRow token : store.tokens().list(tx, null)) {
                Role role = token.teams().get(t.name());
                if (role != null) {
                    members.add(new MemberItem(token.name(), token.owner(), role.wireName()));
                }
            }
            return new TeamDetail(
                    t.name(),
                    t.description(),
                    t.createdBy(),
                    Time.of(t.createdAt()),
                    store.teams().tasksOf(tx, t.name()),
                    store.teams().workflowsOf(tx, t.name()),
                    members);
        });
        c.templates()
                .page(
                        ctx,
                        "team.jte",
                        new Page(I18n.of(ctx).text("page.team", t.name()), "teams", who, Session.takeFlash(ctx)),
                        view);
    }

    /** A team that tasks, workflows or tokens still name is kept; the refusal says which (a 409, back to the team's page). */
    void delete(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        AuditTrail.team(ctx, name);
        c.node().teams().delete(name, who.name());
        Session.flash(ctx, false, "flash.team_deleted", name);
        ctx.redirect("/teams", HttpStatus.SEE_OTHER);
    }

    private void render(Context ctx, Who who, int status, String name, String description, List<FieldReason> errors) {
        List<TeamItem> items = c.node().teams().list().stream()
                .map(t -> new TeamItem(t.name(), t.description(), t.createdBy(), Time.of(t.createdAt())))
                .toList();
        ctx.status(status);
        c.templates()
                .page(
                        ctx,
                        "teams.jte",
                        new Page(I18n.of(ctx).text("page.teams"), "teams", who, Session.takeFlash(ctx)),
                        new Teams(items, name, description, errors));
    }

    private static String field(Context ctx, String name) {
        String v = ctx.formParam(name);
        return v == null ? "" : v;
    }
}
