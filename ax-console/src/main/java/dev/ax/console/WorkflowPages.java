package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Session.Who;
import dev.ax.domain.task.Trigger;
import dev.ax.scheduler.Workflows;
import dev.ax.scheduler.Workflows.NodeView;
import dev.ax.scheduler.Workflows.RunView;
import dev.ax.store.WorkflowRunStore.WorkflowRunRow;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Workflows: the list with recent runs, and a run's page, which draws the graph server-side as an
 * inline SVG (nodes in columns by depth, coloured by state, each linking to its run) with a
 * table of the same nodes below it, and offers a rerun from a node.
 */
public final class WorkflowPages {
    static final int RECENT_RUNS = 50;
    // Graph geometry, in SVG units: a node box, the gaps between columns and rows, the margin.
    static final int BOX_W = 190;
    static final int BOX_H = 58;
    static final int COL_GAP = 70;
    static final int ROW_GAP = 18;
    static final int MARGIN = 12;

    private final ConsoleContext c;

    WorkflowPages(ConsoleContext c) {
        this.c = c;
    }

    public record WorkflowItem(String name, String team, String trigger, int nodes, int version, Time nextFire) {}

    public record RunItem(
            long id,
            String workflow,
            String state,
            String css,
            String cause,
            String date,
            Time created,
            Time finished) {}

    public record WorkflowList(List<WorkflowItem> workflows, List<RunItem> runs) {}

    public record Box(String name, String label, String state, String css, int x, int y, String href) {
        public int w() {
            return BOX_W;
        }

        public int h() {
            return BOX_H;
        }

        public int textX() {
            return x + 10;
        }

        public int nameY() {
            return y + 23;
        }

        public int stateY() {
            return y + 44;
        }
    }

    public record Graph(int width, int height, List<Box> boxes, List<String> edges) {}

    public record NodeItem(
            String name,
            String task,
            String rule,
            String state,
            String css,
            Long instanceId,
            int attempts,
            String upstream,
            String reason) {}

    public record EventItem(String type, Time at, String actor, String message) {}

    public record RunPage(
            RunItem run,
            String team,
            long version,
            String params,
            Graph graph,
            List<NodeItem> nodes,
            Map<String, Integer> instances,
            List<EventItem> events,
            boolean canRerun) {}

    void list(Context ctx, Who who) {
        I18n t = I18n.of(ctx);
        Workflows s = c.node().workflows().service();
        List<WorkflowItem> workflows = s.list(null, 500).stream()
                .map(w -> new WorkflowItem(
                        w.row().name(),
                        w.definition().team(),
                        trigger(w.definition().trigger(), t),
                        w.definition().nodes().size(),
                        w.row().version(),
                        Time.of(w.row().nextFireAt())))
                .toList();
        List<RunItem> runs = s.runs(ctx.queryParam("workflow"), Long.MAX_VALUE, RECENT_RUNS).stream()
                .map(r -> item(r, null))
                .toList();
        c.templates()
                .page(
                        ctx,
                        "workflows.jte",
                        new Page(t.text("page.workflows"), "workflows", who, Session.takeFlash(ctx)),
                        new WorkflowList(workflows, runs));
    }

    void show(Context ctx, Who who) {
        I18n t = I18n.of(ctx);
        RunView v = c.node().workflows().service().run(RunPages.pathId(ctx));
        List<NodeItem> nodes = v.nodes().stream()
                .map(n -> new NodeItem(
                        n.name(),
                        n.task(),
                        n.triggerRule(),
                        n.state().name(),
                        css(n.state().name()),
                        n.instanceId(),
                        n.attempts(),
                        String.join(", ", n.upstream()),
                        n.message() == null
                                ? null
                                : Reasons.of(t, c.mask().apply(n.message())).text()))
                .toList();
        List<EventItem> events = v.events().stream()
                .map(e -> new EventItem(
                        e.type().name(),
                        Time.of(e.at()),
                        e.actor(),
                        e.message() == null
                                ? null
                                : Reasons.of(t, c.mask().apply(e.message())).text()))
                .toList();
        // The team whose grants count for the rerun button: the workflow's now, as the server's check finds it.
        String team = c.store()
                .tx(tx -> c.store().teams().ownerOfWorkflowRun(tx, v.run().id()))
                .map(o -> o.team())
                .orElse(null);
        RunItem run = item(
                v.run(),
                LocalDate.ofInstant(
                                v.run().scheduledAt(), v.definition().trigger().timezone())
                        .toString());
        c.templates()
                .page(
                        ctx,
                        "workflowrun.jte",
                        new Page(t.text("page.workflow_run", v.run().id()), "workflows", who, Session.takeFlash(ctx)),
                        new RunPage(
                                run,
                                team,
                                v.run().workflowVersion(),
                                v.run().params().isEmpty()
                                        ? null
                                        : v.run().params().toString(),
                                graph(v.nodes()),
                                nodes,
                                v.instancesPerTask(),
                                events,
                                v.run().state().isFinished()));
    }

    void rerun(Context ctx, Who who) {
        long id = RunPages.pathId(ctx);
        String from = ctx.formParam("from");
        c.node().workflows().service().rerun(id, from == null || from.isBlank() ? null : from, who.name());
        if (from == null || from.isBlank()) {
            Session.flash(ctx, false, "flash.workflow_rerun_failed", id);
        } else {
            Session.flash(ctx, false, "flash.workflow_rerun_from", id, from);
        }
        ctx.redirect("/workflow-runs/" + id, HttpStatus.SEE_OTHER);
    }

    /** Columns by depth, rows in topological order within a column; edges as curves from a box's right side to the next box's left. */
    static Graph graph(List<NodeView> nodes) {
        Map<Integer, Integer> rows = new HashMap<>();
        Map<String, Box> boxes = new HashMap<>();
        List<Box> ordered = new ArrayList<>();
        int maxDepth = 0;
        int maxRows = 0;
        for (NodeView n : nodes) {
            int row = rows.merge(n.depth(), 1, Integer::sum) - 1;
            maxDepth = Math.max(maxDepth, n.depth());
            maxRows = Math.max(maxRows, row + 1);
            Box b = new Box(
                    n.name(),
                    n.name() + " · " + n.task(),
                    n.state().name(),
                    css(n.state().name()),
                    MARGIN + n.depth() * (BOX_W + COL_GAP),
                    MARGIN + row * (BOX_H + ROW_GAP),
                    n.instanceId() == null ? null : "/runs/" + n.instanceId());
            boxes.put(n.name(), b);
            ordered.add(b);
        }
        List<String> edges = new ArrayList<>();
        for (NodeView n : nodes) {
            Box to = boxes.get(n.name());
            for (String u : n.upstream()) {
                Box from = boxes.get(u);
                int x1 = from.x() + BOX_W;
                int y1 = from.y() + BOX_H / 2;
                int x2 = to.x() - 4;
                int y2 = to.y() + BOX_H / 2;
                int mid = (x1 + x2) / 2;
                edges.add("M" + x1 + " " + y1 + " C" + mid + " " + y1 + " " + mid + " " + y2 + " " + x2 + " " + y2);
            }
        }
        int width = 2 * MARGIN + (maxDepth + 1) * BOX_W + maxDepth * COL_GAP;
        int height = 2 * MARGIN + maxRows * BOX_H + Math.max(0, maxRows - 1) * ROW_GAP;
        return new Graph(width, height, ordered, edges);
    }

    private static RunItem item(WorkflowRunRow r, String date) {
        return new RunItem(
                r.id(),
                r.workflowName(),
                r.state().name(),
                css(r.state().name()),
                r.cause(),
                date,
                Time.of(r.createdAt()),
                Time.of(r.finishedAt()));
    }

    static String css(String state) {
        return "state-" + state.toLowerCase(Locale.ROOT);
    }

    private static String trigger(Trigger trigger, I18n t) {
        return switch (trigger) {
            case Trigger.Cron cron ->
                t.text(
                        "workflows.trigger_cron",
                        cron.expression(),
                        trigger.timezone().getId());
            case Trigger.Interval i -> t.text("workflows.trigger_every", i.intervalSeconds());
            case Trigger.Event e -> t.text("workflows.trigger_event");
        };
    }
}
