package dev.ax.store;

/** The database and every store over it: the one object the control plane passes around. */
public final class Store implements AutoCloseable {
    private final Database db;
    private final TaskStore tasks = new TaskStore();
    private final EventStore events = new EventStore();
    private final RunStore runs = new RunStore(events);
    private final ClaimStore claims = new ClaimStore(events);
    private final LeaseStore leases = new LeaseStore(events);
    private final RunBatches runBatches = new RunBatches(runs, events);
    private final LogStore logs = new LogStore();
    private final ExecutorStore executors = new ExecutorStore();
    private final TokenStore tokens = new TokenStore();
    private final FollowUpStore followUps = new FollowUpStore();
    private final BackfillStore backfills = new BackfillStore();
    private final DependencyStore dependencies = new DependencyStore();
    private final WorkflowStore workflows = new WorkflowStore();
    private final WorkflowRunStore workflowRuns = new WorkflowRunStore();
    private final ShardStore shards = new ShardStore(events);
    private final CanaryStore canaries = new CanaryStore();
    private final SecretStore secrets = new SecretStore();
    private final TriggerKeyStore triggerKeys = new TriggerKeyStore();
    private final TeamStore teams = new TeamStore();
    private final AuditStore audit = new AuditStore();
    private final SessionStore sessions = new SessionStore();
    private final AlertStore alerts = new AlertStore();
    private final RetentionStore retention = new RetentionStore();
    private final PlannerStatistics statistics;
    private final HistoryPartitions partitions;

    public Store(Database db) {
        this.db = db;
        this.statistics = new PlannerStatistics(db);
        this.partitions = new HistoryPartitions(db);
    }

    public static Store open(DbConfig config) {
        return new Store(Database.open(config));
    }

    public Database db() {
        return db;
    }

    public <T> T tx(Database.TxWork<T> work) {
        return db.tx(work);
    }

    public TaskStore tasks() {
        return tasks;
    }

    public RunStore runs() {
        return runs;
    }

    /** Executors claiming READY runs. */
    public ClaimStore claims() {
        return claims;
    }

    /** Who holds which attempt: heartbeats, the fence of reports, expired leases. */
    public LeaseStore leases() {
        return leases;
    }

    /** Many runs written at once: firing batches and grouped reports. */
    public RunBatches runBatches() {
        return runBatches;
    }

    /** Tells {@code tally} of the routine steps of runs this node commits. */
    public void tallyTo(RunTally tally) {
        events.tallyTo(tally);
    }

    public EventStore events() {
        return events;
    }

    /** The alerting side's outbox, cursor and marks. */
    public AlertStore alerts() {
        return alerts;
    }

    public LogStore logs() {
        return logs;
    }

    public ExecutorStore executors() {
        return executors;
    }

    public BackfillStore backfills() {
        return backfills;
    }

    public DependencyStore dependencies() {
        return dependencies;
    }

    public WorkflowStore workflows() {
        return workflows;
    }

    public WorkflowRunStore workflowRuns() {
        return workflowRuns;
    }

    public ShardStore shards() {
        return shards;
    }

    public CanaryStore canaries() {
        return canaries;
    }

    /** Idempotency keys of triggers: which run a caller's key made. */
    public TriggerKeyStore triggerKeys() {
        return triggerKeys;
    }

    public FollowUpStore followUps() {
        return followUps;
    }

    /** Secrets, sealed: the values are the scheduler's to seal and open. */
    public SecretStore secrets() {
        return secrets;
    }

    public TokenStore tokens() {
        return tokens;
    }

    public TeamStore teams() {
        return teams;
    }

    /** The audit log: one row per action. */
    public AuditStore audit() {
        return audit;
    }

    /** Console sessions of single sign-on, and sign-ins under way. */
    public SessionStore sessions() {
        return sessions;
    }

    /** The day partitions of run output on PostgreSQL. */
    public HistoryPartitions partitions() {
        return partitions;
    }

    public RetentionStore retention() {
        return retention;
    }

    public PlannerStatistics statistics() {
        return statistics;
    }

    @Override
    public void close() {
        db.close();
    }
}
