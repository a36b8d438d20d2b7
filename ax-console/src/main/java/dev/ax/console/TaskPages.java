package dev.ax.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.api.AuditTrail;
import dev.ax.console.Fmt.Time;
import dev.ax.console.Permissions.Action;
import dev.ax.console.Session.Who;
import dev.ax.console.Views.TaskDetail;
import dev.ax.console.Views.TaskEditor;
import dev.ax.console.Views.TaskList;
import dev.ax.domain.run.Cause;
import dev.ax.domain.run.RunState;
import dev.ax.domain.schedule.CronPreview;
import dev.ax.domain.schedule.Schedules;
import dev.ax.domain.task.FieldError;
import dev.ax.domain.task.TaskDefinition;
import dev.ax.domain.task.TaskDefinitionCodec;
import dev.ax.domain.task.ValidationException;
import dev.ax.scheduler.ConflictException;
import dev.ax.scheduler.NotFoundException;
import dev.ax.scheduler.Tasks.Saved;
import dev.ax.store.Store;
import dev.ax.store.TaskRow;
import dev.ax.store.read.ConsoleReads;
import dev.ax.store.read.ConsoleReads.RunListFilter;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The task list, a task's page, the JSON editor, and what can be done to a task. */
final class TaskPages {
    static final int PAGE_SIZE = 50;
    static final int RECENT_RUNS = 20;
    static final int VERSIONS = 20;
    static final int NEXT_FIRES = 10;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConsoleContext c;

    TaskPages(ConsoleContext c) {
        this.c = c;
    }

    void list(Context ctx, Who who) {
        String search = blankToNull(ctx.queryParam("q"));
        String after = blankToNull(ctx.queryParam("after"));
        Store store = c.store();
        I18n t = I18n.of(ctx);
        TaskList view = store.tx(tx -> {
            List<TaskRow> rows = store.tasks().list(tx, after, search, PAGE_SIZE + 1);
            boolean more = rows.size() > PAGE_SIZE;
            List<TaskRow> page = more ? rows.subList(0, PAGE_SIZE) : rows;
            Map<Long, RunState> last =
                    ConsoleReads.lastStates(tx, page.stream().map(TaskRow::id).toList());
            return new TaskList(
                    search,
                    page.stream()
                            .map(row -> new Views.TaskRow(
                                    row.name(),
                                    row.definition().team(),
                                    row.definition().trigger().type(),
                                    Items.schedule(row.definition().trigger(), t),
                                    row.definition().trigger().timezone().getId(),
                                    Time.of(row.nextFireAt()),
                                    row.paused(),
                                    last.get(row.id()),
                                    row.version()))
                            .toList(),
                    more ? page.getLast().name() : null);
        });
        c.templates()
                .page(ctx, "tasks.jte", new Page(t.text("page.tasks"), "tasks", who, Session.takeFlash(ctx)), view);
    }

    void show(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        Store store = c.store();
        I18n words = I18n.of(ctx);
        TaskDetail view = store.tx(tx -> {
            TaskRow t = store.tasks().find(tx, name).orElseThrow(() -> new NotFoundException("no task named " + name));
            TaskDefinition def = t.definition();
            List<Time> next = List.of();
            String note = null;
            if (!def.trigger().isScheduled()) {
                note = words.text("task.note_event");
            } else {
                next = CronPreview.preview(Schedules.of(def.trigger()), tx.now(), NEXT_FIRES).stream()
                        .map(Time::of)
                        .toList();
                if (t.paused()) {
                    note = words.text("task.note_paused", def.policy().misfire());
                }
            }
            var counts = dev.ax.api.Views.Counters.of(
                    store.events().countByType(tx, t.id(), dev.ax.api.Views.Counters.TYPES));
            return new TaskDetail(
                    t.name(),
                    def.team(),
                    t.version(),
                    t.paused(),
                    def.trigger().type(),
                    Items.schedule(def.trigger(), words),
                    def.trigger().timezone().getId(),
                    def.group(),
                    Fmt.prettyJson(TaskDefinitionCodec.toJson(def)),
                    next,
                    note,
                    Items.runs(
                            ConsoleReads.runs(
                                    tx, new RunListFilter(List.of(t.id()), null, null, 0), Long.MAX_VALUE, RECENT_RUNS),
                            words),
                    store.tasks().versions(tx, name, VERSIONS).stream()
                            .map(v -> Items.version(v.taskName(), v.version(), v.change(), v.actor(), v.at(), v.diff()))
                            .toList(),
                    new Views.Counters(
                            counts.overlapSkipped(),
                            counts.queueDropped(),
                            counts.missedCaughtUp(),
                            counts.missedSlotEvents()),
                    t.createdBy(),
                    Time.of(t.createdAt()),
                    t.updatedBy(),
                    Time.of(t.updatedAt()),
                    c.node().canaries().active(tx, t.id()).orElse(null),
                    Items.paramFields(def.params()));
        });
        c.templates().page(ctx, "task.jte", new Page(name, "tasks", who, Session.takeFlash(ctx)), view);
    }

    // ---- the editor -------------------------------------------------------------------------

    /** The README's example; for someone who may create tasks only in their teams, already in the first of them. */
    void newForm(Context ctx, Who who) {
        Access.requireSomeTeam(who, Action.CREATE_TASK);
        var role = Permissions.required(Action.CREATE_TASK);
        String team = who.may(role, null)
                ? null
                : who.principal().grants().teams().entrySet().stream()
                        .filter(e -> role.admits(e.getValue()))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElse(null);
        editor(ctx, who, 200, new TaskEditor(null, team == null ? TEMPLATE : inTeam(team), List.of(), List.of()));
    }

    void create(Context ctx, Who who) {
        String text = ctx.formParam("definition");
        try {
            Object json = parse(text);
            if (json instanceof Map<?, ?> m && m.get("taskName") instanceof String name) {
                AuditTrail.target(ctx, "task:" + name);
            }
            Saved saved = c.node().tasks().create(json, who.name());
            AuditTrail.note(ctx, "version 1");
            saved(ctx, saved, "flash.created", saved.task().name(), 1);
        } catch (ValidationException e) {
            editor(ctx, who, 400, new TaskEditor(null, text, Reasons.fields(I18n.of(ctx), e.errors()), List.of()));
        } catch (ConflictException e) {
            editor(
                    ctx,
                    who,
                    409,
                    new TaskEditor(
                            null,
                            text,
                            Reasons.fields(I18n.of(ctx), List.of(new FieldError("taskName", e.getMessage()))),
                            List.of()));
        }
    }

    void editForm(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        TaskRow t = find(name);
        // Before the draft exists, the task's own team is the one that counts.
        Access.require(
                who, Action.EDIT_TASK, Optional.of(Access.teamsOf(t.definition().team())));
        editor(
                ctx,
                who,
                200,
                new TaskEditor(name, Fmt.prettyJson(TaskDefinitionCodec.toJson(t.definition())), List.of(), List.of()));
    }

    void update(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        String text = ctx.formParam("definition");
        try {
            Saved saved = c.node().tasks().update(name, parse(text), who.name());
            recordVersion(ctx, saved.task());
            saved(ctx, saved, "flash.saved", name, saved.task().version());
        } catch (ValidationException e) {
            editor(ctx, who, 400, new TaskEditor(name, text, Reasons.fields(I18n.of(ctx), e.errors()), List.of()));
        }
    }

    /** The audit entry of an edit carries its version and what it changed, as the version stores it (as the API's does). */
    private void recordVersion(Context ctx, TaskRow task) {
        AuditTrail.note(ctx, "version " + task.version());
        Store store = c.store();
        store.tx(tx -> store.tasks().versions(tx, task.name(), 1)).stream()
                .findFirst()
                .filter(v -> v.version() == task.version())
                .ifPresent(v -> AuditTrail.diff(ctx, v.diff()));
    }

    /**
     * A draft whose team this person may not write to (or a task of a team they may not edit): the editor again, with
     * the draft and why, so nothing typed is lost.
     */
    void refusedDraft(Context ctx, Who who, Console.Refused refused) {
        String name = ctx.pathParamMap().get("name");
        if (name == null) {
            try {
                if (parse(ctx.formParam("definition")) instanceof Map<?, ?> m
                        && m.get("taskName") instanceof String drafted) {
                    AuditTrail.target(ctx, "task:" + drafted);
                }
            } catch (ValidationException e) {
                // no name to record: the entry says what was refused all the same
            }
        }
        AuditTrail.note(ctx, refused.getMessage());
        editor(
                ctx,
                who,
                403,
                new TaskEditor(
                        name,
                        ctx.formParam("definition"),
                        List.of(new Reasons.FieldReason("team", Reasons.of(I18n.of(ctx), refused))),
                        List.of()));
    }

    /** "created daily_report v1", with the server's warnings (each in the person's words) after it. */
    private void saved(Context ctx, Saved saved, String key, String name, int version) {
        I18n t = I18n.of(ctx);
        I18n en = I18n.english();
        String shown = t.text(key, name, version);
        String english = en.text(key, name, version);
        if (!saved.warnings().isEmpty()) {
            shown += t.text(
                    "flash.warnings",
                    String.join(
                            "; ",
                            saved.warnings().stream()
                                    .map(w -> Reasons.of(t, w).text())
                                    .toList()));
            english += en.text("flash.warnings", String.join("; ", saved.warnings()));
        }
        Session.flashTranslated(ctx, false, shown, english);
        ctx.redirect("/tasks/" + saved.task().name(), HttpStatus.SEE_OTHER);
    }

    private void editor(Context ctx, Who who, int status, TaskEditor view) {
        ctx.status(status);
        I18n t = I18n.of(ctx);
        String title = view.isNew() ? t.text("page.new_task") : t.text("page.edit_task", view.name());
        TaskEditor shown = view.isNew()
                ? view
                : view.withTeam(Access.ofTask(c, view.name())
                        .map(teams -> teams.getFirst())
                        .orElse(null));
        c.templates().page(ctx, "editor.jte", new Page(title, "tasks", who, Session.takeFlash(ctx)), shown);
    }

    /** The editor's text as a JSON tree; broken JSON is an error on the field "" with where it broke. */
    static Object parse(String text) {
        if (text == null || text.isBlank()) {
            throw new ValidationException("", "the definition is empty: paste the task's JSON");
        }
        try {
            return JSON.readValue(text, Object.class);
        } catch (JsonProcessingException e) {
            throw new ValidationException(
                    "",
                    "malformed JSON: " + e.getOriginalMessage()
                            + (e.getLocation() == null
                                    ? ""
                                    : " at line " + e.getLocation().getLineNr() + ", column "
                                            + e.getLocation().getColumnNr()));
        }
    }

    // ---- actions ----------------------------------------------------------------------------

    void confirmDelete(Context ctx, Who who) {
        TaskRow t = find(ctx.pathParam("name"));
        Access.require(
                who,
                Action.DELETE_TASK,
                Optional.of(Access.teamsOf(t.definition().team())));
        String name = t.name();
        c.templates()
                .page(
                        ctx,
                        "delete.jte",
                        new Page(I18n.of(ctx).text("page.delete", name), "tasks", who, Session.takeFlash(ctx)),
                        name);
    }

    void delete(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        c.node().tasks().delete(name, who.name());
        Session.flash(ctx, false, "flash.deleted", name);
        ctx.redirect("/tasks", HttpStatus.SEE_OTHER);
    }

    /**
     * Runs the task now, by hand: with the form's field per declared parameter (an empty field is left out, so its
     * default applies), or, for a task that declares none, the form's {@code key=value} lines.
     */
    void trigger(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        Map<String, Object> params =
                ctx.formParamMap().keySet().stream().anyMatch(k -> k.startsWith(PARAM_FIELD_PREFIX))
                        ? declaredParams(ctx)
                        : params(ctx.formParam("params"));
        long id = c.node().tasks().trigger(name, params, Cause.MANUAL, who.name());
        Session.flash(ctx, false, "flash.triggered", name, id);
        ctx.redirect("/runs/" + id, HttpStatus.SEE_OTHER);
    }

    void promoteCanary(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        TaskRow t = c.node().canaries().promote(name, who.name());
        Session.flash(ctx, false, "flash.promoted", name, t.version());
        ctx.redirect("/tasks/" + name, HttpStatus.SEE_OTHER);
    }

    void rollbackCanary(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        TaskRow t = c.node().canaries().rollback(name, who.name());
        Session.flash(ctx, false, "flash.rolled_back", name, t.version());
        ctx.redirect("/tasks/" + name, HttpStatus.SEE_OTHER);
    }

    /** The editor's "Test run" button: runs the text in the editor once, as a test, and saves nothing. */
    void testRun(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        String text = ctx.formParam("definition");
        try {
            long id = c.node()
                    .testRuns()
                    .run(name, parse(text), Map.of(), who.name())
                    .instanceId();
            Session.flash(ctx, false, "flash.test_run", id);
            ctx.redirect("/runs/" + id, HttpStatus.SEE_OTHER);
        } catch (ValidationException e) {
            editor(ctx, who, 400, new TaskEditor(name, text, Reasons.fields(I18n.of(ctx), e.errors()), List.of()));
        }
    }

    void pause(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        c.node().tasks().setPaused(name, true, who.name());
        Session.flash(ctx, false, "flash.paused", name);
        ctx.redirect("/tasks/" + name, HttpStatus.SEE_OTHER);
    }

    void resume(Context ctx, Who who) {
        String name = ctx.pathParam("name");
        c.node().tasks().setPaused(name, false, who.name());
        Session.flash(ctx, false, "flash.resumed", name);
        ctx.redirect("/tasks/" + name, HttpStatus.SEE_OTHER);
    }

    /** The prefix of the trigger form's fields that carry declared parameters. */
    static final String PARAM_FIELD_PREFIX = "param.";

    /** The declared parameters' fields as they were filled in: text the server checks and types; a list field is one value a line. */
    private static Map<String, Object> declaredParams(Context ctx) {
        Map<String, Object> out = new LinkedHashMap<>();
        ctx.formParamMap().forEach((key, values) -> {
            if (key.startsWith(PARAM_FIELD_PREFIX)
                    && !values.isEmpty()
                    && !values.getFirst().isBlank()) {
                String value = values.getFirst();
                boolean list = "true".equals(ctx.formParam("list." + key.substring(PARAM_FIELD_PREFIX.length())));
                out.put(
                        key.substring(PARAM_FIELD_PREFIX.length()),
                        list
                                ? value.lines()
                                        .map(String::strip)
                                        .filter(l -> !l.isEmpty())
                                        .toList()
                                : value.strip());
            }
        });
        return out;
    }

    /** {@code key=value} per line; blank lines are skipped; a line without '=' or with an empty key is refused. */
    static Map<String, Object> params(String text) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (text == null) {
            return out;
        }
        String[] lines = text.split("\\R");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new ValidationException("params", "line " + (i + 1) + " '" + line + "': write key=value");
            }
            out.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
        }
        return out;
    }

    private TaskRow find(String name) {
        Store store = c.store();
        return store.tx(tx -> store.tasks().find(tx, name))
                .orElseThrow(() -> new NotFoundException("no task named " + name));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** What the new-task editor starts with: the README's example, to change rather than to remember. */
    static final String TEMPLATE = """
            {
              "taskName": "daily_report",
              "trigger": { "type": "cron", "expression": "0 2 * * *", "timezone": "Asia/Shanghai" },
              "action": { "type": "shell", "command": "echo report for {{yesterday}}" },
              "policy": { "maxRetries": 2, "retryIntervalSeconds": 300, "timeoutSeconds": 1200 }
            }
            """;

    /** The example in {@code team}: a team's admin may create tasks only there. */
    static String inTeam(String team) {
        return TEMPLATE.replaceFirst("\\{\n", "{\n  \"team\": \"" + team + "\",\n");
    }
}
