package dev.ax.console;

import dev.ax.console.Fmt.Time;
import dev.ax.console.Reasons.FieldReason;
import dev.ax.console.Reasons.Reason;
import dev.ax.domain.run.RunState;
import dev.ax.scheduler.Canaries;
import dev.ax.scheduler.Dependencies;
import java.util.List;

/**
 * What each template shows, already formatted: records of strings, numbers and {@link Time}s,
 * so that a template only lays out and never computes.
 */
public final class Views {
    private Views() {}

    /** One run as a row of a table. */
    public record RunItem(
            long id,
            String taskName,
            RunState state,
            String cause,
            String attempts,
            Time scheduled,
            Time created,
            Time finished,
            String duration,
            String executor,
            String exitCode) {}

    public record Count(String label, long n, String css) {}

    public record Bar(int x, int y, int height, int failedY, int failedHeight, String title, String label) {}

    /** The runs-per-hour chart, laid out in SVG units; {@code lagPoints} is a polyline of the worst fire lag per hour. */
    public record Chart(
            int width,
            int height,
            int barWidth,
            long max,
            List<Bar> bars,
            String lagPoints,
            String maxLag,
            String zone) {}

    public record Dashboard(
            int windowHours,
            long total,
            List<Count> outcomes,
            long runningCount,
            List<RunItem> running,
            long waitingCount,
            List<RunItem> waiting,
            List<RunItem> failed,
            long ready,
            long blocked,
            long retrying,
            int executorsOnline,
            int executorsTotal,
            Health health,
            Chart chart) {}

    public record TaskRow(
            String name,
            String team,
            String triggerType,
            String schedule,
            String timezone,
            Time nextFire,
            boolean paused,
            RunState lastState,
            int version) {}

    public record TaskList(String search, List<TaskRow> rows, String next) {}

    public record DiffItem(String path, String from, String to) {}

    public record VersionItem(
            String taskName, int version, String change, String actor, Time at, List<DiffItem> diff) {}

    public record Counters(long overlapSkipped, long queueDropped, long missedCaughtUp, long missedSlotEvents) {}

    /**
     * @param params the trigger form's fields, one per declared parameter; empty when the task declares none
     *               (the form then takes {@code key=value} lines)
     */
    public record TaskDetail(
            String name,
            String team,
            int version,
            boolean paused,
            String triggerType,
            String schedule,
            String timezone,
            String group,
            String definition,
            List<Time> nextFires,
            String previewNote,
            List<RunItem> runs,
            List<VersionItem> versions,
            Counters counters,
            String createdBy,
            Time createdAt,
            String updatedBy,
            Time updatedAt,
            Canaries.Status canary,
            List<ParamField> params) {}

    /**
     * One declared parameter as a field of the trigger form. {@code options} non-empty: a select; {@code multiline}: a
     * list, one value per line; otherwise an input of {@code inputType} (date, number, text).
     */
    public record ParamField(
            String name,
            String inputType,
            boolean required,
            String value,
            List<String> options,
            String description,
            String min,
            String max,
            String step,
            boolean multiline) {
        /** The form field's name: a prefix keeps it apart from the form's own fields. */
        public String field() {
            return TaskPages.PARAM_FIELD_PREFIX + name;
        }
    }

    /**
     * The JSON editor, for a new task ({@code name} null) or an existing one; errors are listed next to it.
     *
     * @param team the saved task's team (whose grants count for its test-run button); null for a new task or none
     */
    public record TaskEditor(String name, String json, List<FieldReason> errors, List<String> warnings, String team) {
        public TaskEditor(String name, String json, List<FieldReason> errors, List<String> warnings) {
            this(name, json, errors, warnings, null);
        }

        TaskEditor withTeam(String team) {
            return new TaskEditor(name, json, errors, warnings, team);
        }

        public boolean isNew() {
            return name == null;
        }
    }

    public record Option(String value, String label, boolean selected) {}

    public record RunList(
            String task,
            List<Option> states,
            List<Option> causes,
            List<Option> periods,
            List<RunItem> rows,
            String next,
            String filterQuery) {}

    public record ChainItem(long id, String cause, String actor, boolean current) {}

    /** One event of a run's timeline; its message in the person's words when AX knows them, else as recorded. */
    public record EventItem(
            Long id, String type, String move, Integer attempt, String actor, Time at, Reason message) {}

    /** An approval request: who may decide, until when, and what the preview printed. */
    public record ApprovalItem(
            String approvers,
            boolean fourEyes,
            Time deadline,
            String requestedBy,
            Long previewId,
            RunState previewState,
            String previewOutput,
            boolean mayDecide,
            String whyNot) {}

    public record RunDetail(
            long id,
            String taskName,
            String team,
            int taskVersion,
            RunState state,
            String cause,
            String fireKey,
            Time scheduled,
            Time created,
            Time started,
            Time finished,
            String duration,
            String attempts,
            String group,
            String executor,
            String pid,
            String exitCode,
            String failureKind,
            Reason message,
            String requestId,
            String params,
            Time readyAt,
            Time leaseExpires,
            String actor,
            String nodeId,
            String waitingReason,
            List<ChainItem> chain,
            List<EventItem> events,
            List<LogItem> log,
            long lastChunkId,
            int logAttempt,
            boolean logCut,
            boolean live,
            ApprovalItem approval,
            boolean canTerminate,
            boolean canCancel,
            boolean canRetry,
            boolean canRerun,
            List<Dependencies.WaitingFor> waitingFor,
            List<ShardItem> shards) {}

    /** One shard of a sharded run (policy.sharding), for the run page's shard table. */
    public record ShardItem(
            int index,
            int total,
            String state,
            int attempt,
            String executor,
            String pid,
            String exitCode,
            String message,
            Time started,
            Time finished) {}

    /** A piece of a run's output: {@code css} tells stdout, stderr and the line that starts an attempt apart. */
    public record LogItem(String css, String text) {}

    public record ExecutorItem(
            String id,
            String groups,
            String host,
            String pid,
            String version,
            Time started,
            Time lastSeen,
            boolean online) {}

    public record Executors(List<ExecutorItem> items, long aliveSeconds) {}

    // ---- tokens, teams, the audit log ---------------------------------------------------------

    /** A token as the lists show it: never its value. {@code current}: the token the person looking is logged in with. */
    public record TokenItem(
            String name,
            String owner,
            String role,
            String teams,
            String groups,
            String createdBy,
            Time created,
            Time expires,
            boolean expired,
            Time lastUsed,
            boolean current) {}

    /** The new-token form's fields as they were sent, to show again with what was wrong. */
    public record TokenForm(String name, String owner, String role, String teams, String groups, String expiresIn) {
        static final TokenForm EMPTY = new TokenForm("", "", "viewer", "", "", "");
    }

    /** A token just made: shown on this one answer and never again. */
    public record MadeToken(String name, String owner, String grants, String token) {}

    /**
     * The Tokens page (every token, the form) or My tokens ({@code form} null).
     *
     * @param made the token just made, or null
     */
    public record Tokens(
            List<TokenItem> items,
            TokenForm form,
            List<Option> roles,
            List<Option> lifetimes,
            List<FieldReason> errors,
            MadeToken made) {}

    public record TeamItem(String name, String description, String createdBy, Time created) {}

    public record Teams(List<TeamItem> items, String name, String description, List<FieldReason> errors) {}

    /** A token with a role in a team: the team's members. */
    public record MemberItem(String token, String owner, String role) {}

    public record TeamDetail(
            String name,
            String description,
            String createdBy,
            Time created,
            List<String> tasks,
            List<String> workflows,
            List<MemberItem> members) {}

    /** One audit entry; {@code href} is the target's page, when it has one. */
    public record AuditItem(
            long id,
            Time at,
            String actor,
            String via,
            String team,
            String address,
            String action,
            String target,
            String href,
            String outcome,
            int status,
            String message,
            List<DiffItem> diff) {}

    /**
     * The audit log page: the filters as sent; {@code teams} non-empty: the only teams this person may read (a team's
     * admin), offered as a choice; {@code older} the query string of the next page, or null.
     */
    public record AuditLog(
            String actor,
            String team,
            String target,
            String from,
            String to,
            List<Option> teams,
            List<AuditItem> items,
            String older) {}

    /**
     * @param history how much history is kept and for how long; null when the database does not answer
     */
    public record Health(
            String status,
            String nodeId,
            Time nodeTime,
            Time dbTime,
            String offsetMillis,
            long loopErrors,
            String error,
            History history) {}

    /**
     * The history the database holds (row counts are PostgreSQL's estimates) and its retention: the periods in force and
     * what this node deleted since it started.
     */
    public record History(
            long runs,
            long events,
            long logChunks,
            Time oldestRun,
            String keepRuns,
            String keepLogs,
            long deletedRuns,
            long deletedLogChunks) {}

    /** @param sso the single sign-on button's words, or null when the server has none */
    public record Login(String next, String error, String sso) {
        public Login(String next, String error) {
            this(next, error, null);
        }
    }

    public record ErrorPage(int status, String title, Reason message) {}
}
