-- AX schema, MariaDB 10.6+ and MySQL 8.0+: the schema PostgreSQL and H2 reach at V40, in one step.
-- It differs from ../postgresql where the dialects do:
--   - times are DATETIME(6) holding UTC (the store writes and reads them without a zone, and takes
--     "now" as UTC_TIMESTAMP(6)), so the session's time zone never matters;
--   - TEXT is LONGTEXT (MariaDB's TEXT stops at 64 KB), BYTEA is LONGBLOB;
--   - text compares byte for byte (utf8mb4_bin), as on PostgreSQL: names and keys differing in case are
--     different (the default collations would make 'Nightly' and 'nightly' one task name);
--   - there are no partial indexes: an index on a rare state leads with the state (as on H2), a partial
--     unique index is a unique index on a generated column that is NULL outside the rows it covers.
-- Every table is InnoDB, whatever the server's default engine: the store relies on its row locks.
-- The session's sql_mode has ANSI_QUOTES (Dialect.SQL_MODE): "change" is a column, not a string.

CREATE TABLE ax_task (
    id                   BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name                 VARCHAR(100) NOT NULL,
    version              INT NOT NULL,
    definition           LONGTEXT NOT NULL,
    trigger_type         VARCHAR(16) NOT NULL,
    executor_group       VARCHAR(100) NOT NULL,
    enabled              BOOLEAN NOT NULL,
    next_fire_at         DATETIME(6),
    created_at           DATETIME(6) NOT NULL,
    created_by           VARCHAR(100) NOT NULL,
    updated_at           DATETIME(6) NOT NULL,
    updated_by           VARCHAR(100) NOT NULL,
    canary               BOOLEAN NOT NULL DEFAULT FALSE,
    fires_ahead          BOOLEAN NOT NULL DEFAULT FALSE,
    team                 VARCHAR(100),
    retention_runs_ms    BIGINT,
    retention_failed_ms  BIGINT,
    retention_keep_last  INT,
    CONSTRAINT ax_task_name_uq UNIQUE (name),
    -- The firing claim reads enabled tasks by their next slot.
    INDEX ax_task_due (enabled, next_fire_at),
    INDEX ax_task_team (team)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every change of a task: the audit log. Kept when the task is deleted.
CREATE TABLE ax_task_version (
    task_id     BIGINT NOT NULL,
    version     INT NOT NULL,
    task_name   VARCHAR(100) NOT NULL,
    "change"    VARCHAR(16) NOT NULL,
    definition  LONGTEXT,
    diff        LONGTEXT,
    actor       VARCHAR(100) NOT NULL,
    created_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (task_id, version),
    INDEX ax_task_version_name (task_name, task_id, version),
    INDEX ax_task_version_time (created_at, task_id, version)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE ax_instance (
    id                   BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    task_id              BIGINT NOT NULL,
    task_name            VARCHAR(100) NOT NULL,
    task_version         INT NOT NULL,
    cause                VARCHAR(16) NOT NULL,
    fire_key             VARCHAR(100) NOT NULL,
    scheduled_at         DATETIME(6) NOT NULL,
    params               LONGTEXT,
    state                VARCHAR(20) NOT NULL,
    attempt              INT NOT NULL DEFAULT 0,
    max_attempts         INT NOT NULL,
    executor_group       VARCHAR(100) NOT NULL,
    ready_at             DATETIME(6) NOT NULL,
    executor_id          VARCHAR(200),
    lease_expires_at     DATETIME(6),
    pid                  BIGINT,
    exit_code            INT,
    failure_kind         VARCHAR(32),
    message              LONGTEXT,
    actor                VARCHAR(100) NOT NULL,
    node_id              VARCHAR(100) NOT NULL,
    parent_id            BIGINT,
    root_id              BIGINT,
    request_id           VARCHAR(200),
    created_at           DATETIME(6) NOT NULL,
    started_at           DATETIME(6),
    finished_at          DATETIME(6),
    updated_at           DATETIME(6) NOT NULL,
    approval_deadline    DATETIME(6),
    backfill_id          BIGINT,
    business_date        DATE,
    dependency_deadline  DATETIME(6),
    workflow_run_id      BIGINT,
    claim_node           VARCHAR(100),
    pid_at               DATETIME(6),
    start_node           VARCHAR(100),
    end_node             VARCHAR(100),
    -- Invariant 1: one run per (task, slot), whatever the nodes, clocks or crashes.
    CONSTRAINT ax_instance_slot_uq UNIQUE (task_id, fire_key),
    -- The claim (READY runs of a group by ready time), a group's RUNNING runs, the READY backlog.
    INDEX ax_instance_ready (state, executor_group, ready_at, id),
    -- The runs in one state newest first (lists, counts), and the few in a rare one: RUNNING for expired
    -- leases, RETRYING, BLOCKED, WAITING_APPROVAL and WAITING_DEPENDENCY for their deadlines.
    INDEX ax_instance_state (state, id),
    -- A task's runs newest first; its active and waiting runs (the concurrency gate, under the task's lock).
    INDEX ax_instance_task (task_id, id),
    INDEX ax_instance_active (task_id, state, id),
    INDEX ax_instance_parent (parent_id),
    INDEX ax_instance_request (task_id, request_id),
    -- Without the state, unlike PostgreSQL's partial index: here every run has an entry, and one holding the state
    -- would be rewritten at each of its state changes.
    INDEX ax_instance_backfill (backfill_id, id),
    INDEX ax_instance_task_slot (task_id, scheduled_at),
    INDEX ax_instance_business_date (task_id, business_date, id),
    INDEX ax_instance_workflow_run (workflow_run_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Append-only: every transition and every decision that is not a run's routine step.
CREATE TABLE ax_event (
    id               BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    instance_id      BIGINT,
    task_id          BIGINT,
    task_name        VARCHAR(100),
    type             VARCHAR(32) NOT NULL,
    from_state       VARCHAR(20),
    to_state         VARCHAR(20),
    attempt          INT,
    actor            VARCHAR(100) NOT NULL,
    node_id          VARCHAR(100) NOT NULL,
    at               DATETIME(6) NOT NULL,
    message          LONGTEXT,
    data             LONGTEXT,
    workflow_run_id  BIGINT,
    INDEX ax_event_instance (instance_id, id),
    INDEX ax_event_task (task_id, id),
    INDEX ax_event_task_type (task_id, type),
    INDEX ax_event_workflow_run (workflow_run_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Run output, in chunks of lines as executors send them; shard_index NULL for runs not sharded.
CREATE TABLE ax_log (
    id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    instance_id  BIGINT NOT NULL,
    attempt      INT NOT NULL,
    stream       VARCHAR(6) NOT NULL,
    at           DATETIME(6) NOT NULL,
    text         LONGTEXT NOT NULL,
    shard_index  INT,
    INDEX ax_log_instance (instance_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE ax_executor (
    id            VARCHAR(200) NOT NULL PRIMARY KEY,
    session       VARCHAR(64) NOT NULL,
    host          VARCHAR(200),
    pid           BIGINT,
    version       VARCHAR(50),
    started_at    DATETIME(6) NOT NULL,
    last_seen_at  DATETIME(6) NOT NULL,
    token_name    VARCHAR(100)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_executor_group (
    executor_id  VARCHAR(200) NOT NULL,
    group_name   VARCHAR(100) NOT NULL,
    PRIMARY KEY (executor_id, group_name),
    INDEX ax_executor_group_name (group_name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- Labels an executor registered with (ax executor --label prod).
CREATE TABLE ax_executor_label (
    executor_id  VARCHAR(200) NOT NULL,
    label        VARCHAR(100) NOT NULL,
    PRIMARY KEY (executor_id, label)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Tokens for people and machines. team_roles: a JSON object team -> role granted above the global role;
-- exec_groups: a JSON array of the executor groups an executor's token may serve (NULL = every group).
CREATE TABLE ax_token (
    id            BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name          VARCHAR(100) NOT NULL,
    token_hash    VARCHAR(64) NOT NULL,
    role          VARCHAR(16) NOT NULL,
    created_at    DATETIME(6) NOT NULL,
    created_by    VARCHAR(100) NOT NULL,
    owner         VARCHAR(100) NOT NULL,
    team_roles    LONGTEXT,
    exec_groups   LONGTEXT,
    expires_at    DATETIME(6),
    last_used_at  DATETIME(6),
    CONSTRAINT ax_token_hash_uq UNIQUE (token_hash),
    CONSTRAINT ax_token_name_uq UNIQUE (name),
    INDEX ax_token_owner (owner)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- A revoked token's hash, so that a request still carrying it is told it was revoked (and when, by whom).
CREATE TABLE ax_token_revoked (
    token_hash  VARCHAR(64) NOT NULL PRIMARY KEY,
    name        VARCHAR(100) NOT NULL,
    owner       VARCHAR(100) NOT NULL,
    revoked_at  DATETIME(6) NOT NULL,
    revoked_by  VARCHAR(100) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- An outbox of follow-ups (policy.onFailedActions), written in the transaction that fails the run.
CREATE TABLE ax_follow_up (
    id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    instance_id  BIGINT NOT NULL,
    task_id      BIGINT NOT NULL,
    position     INT NOT NULL,
    action       LONGTEXT NOT NULL,
    state        VARCHAR(10) NOT NULL,
    attempts     INT NOT NULL DEFAULT 0,
    next_at      DATETIME(6) NOT NULL,
    last_error   LONGTEXT,
    created_at   DATETIME(6) NOT NULL,
    done_at      DATETIME(6),
    CONSTRAINT ax_follow_up_once UNIQUE (instance_id, position),
    INDEX ax_follow_up_pending (state, next_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Backfills: one object per request, its slots created a few at a time by the housekeeping loop.
CREATE TABLE ax_backfill (
    id            BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    task_id       BIGINT NOT NULL,
    task_name     VARCHAR(100) NOT NULL,
    range_from    DATETIME(6) NOT NULL,
    range_to      DATETIME(6) NOT NULL,
    parallelism   INT NOT NULL,
    reprocess     VARCHAR(10) NOT NULL,
    newest_first  BOOLEAN NOT NULL,
    params        LONGTEXT,
    state         VARCHAR(10) NOT NULL,
    total         INT NOT NULL,
    next_index    INT NOT NULL,
    created_by    VARCHAR(100) NOT NULL,
    created_at    DATETIME(6) NOT NULL,
    updated_at    DATETIME(6) NOT NULL,
    INDEX ax_backfill_running (state),
    INDEX ax_backfill_task (task_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Alerts (ax-alerts): where the tail has got to in ax_event (one row), the outbox (one row per alert per
-- channel; the unique (channel, dedupe_key) makes one alert per outcome hold across nodes), the anomalies
-- already reported and the watchdog's checks. See ../postgresql/V20__alerts.sql.
CREATE TABLE ax_alert_cursor (
    id             INT NOT NULL PRIMARY KEY,
    last_event_id  BIGINT NOT NULL,
    updated_at     DATETIME(6) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT INTO ax_alert_cursor (id, last_event_id, updated_at) VALUES (1, 0, UTC_TIMESTAMP(6));
CREATE TABLE ax_alert (
    id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    channel      VARCHAR(100) NOT NULL,
    dedupe_key   VARCHAR(300) NOT NULL,
    kind         VARCHAR(32) NOT NULL,
    task_id      BIGINT,
    task_name    VARCHAR(100),
    instance_id  BIGINT,
    content      LONGTEXT NOT NULL,
    state        VARCHAR(10) NOT NULL,
    attempts     INT NOT NULL DEFAULT 0,
    next_at      DATETIME(6) NOT NULL,
    last_error   LONGTEXT,
    summary_id   BIGINT,
    created_at   DATETIME(6) NOT NULL,
    sent_at      DATETIME(6),
    CONSTRAINT ax_alert_once UNIQUE (channel, dedupe_key),
    INDEX ax_alert_pending (state, next_at, id),
    INDEX ax_alert_recent (channel, created_at),
    INDEX ax_alert_summary (summary_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_anomaly (
    anomaly_key  VARCHAR(300) NOT NULL PRIMARY KEY,
    kind         VARCHAR(32) NOT NULL,
    task_id      BIGINT,
    detail       LONGTEXT,
    seen_at      DATETIME(6) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_watch_check (
    check_key   VARCHAR(200) NOT NULL PRIMARY KEY,
    failing     BOOLEAN NOT NULL,
    since       DATETIME(6) NOT NULL,
    detail      LONGTEXT,
    node_id     VARCHAR(100) NOT NULL,
    updated_at  DATETIME(6) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Which tasks wait for which (dependsOn of each task's current version, its own name for previousSlot).
CREATE TABLE ax_task_dependency (
    task_id        BIGINT NOT NULL,
    upstream_name  VARCHAR(100) NOT NULL,
    PRIMARY KEY (task_id, upstream_name),
    INDEX ax_task_dependency_upstream (upstream_name, task_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Workflows: tasks joined into a graph with one trigger. See ../postgresql/V22__workflows.sql.
CREATE TABLE ax_workflow (
    id            BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name          VARCHAR(100) NOT NULL,
    version       INT NOT NULL,
    definition    LONGTEXT NOT NULL,
    enabled       BOOLEAN NOT NULL,
    next_fire_at  DATETIME(6),
    created_at    DATETIME(6) NOT NULL,
    created_by    VARCHAR(100) NOT NULL,
    updated_at    DATETIME(6) NOT NULL,
    updated_by    VARCHAR(100) NOT NULL,
    team          VARCHAR(100),
    CONSTRAINT ax_workflow_name_uq UNIQUE (name),
    INDEX ax_workflow_due (enabled, next_fire_at),
    INDEX ax_workflow_team (team)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_workflow_run (
    id                BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    workflow_id       BIGINT NOT NULL,
    workflow_name     VARCHAR(100) NOT NULL,
    workflow_version  INT NOT NULL,
    definition        LONGTEXT NOT NULL,
    cause             VARCHAR(16) NOT NULL,
    fire_key          VARCHAR(100) NOT NULL,
    scheduled_at      DATETIME(6) NOT NULL,
    params            LONGTEXT,
    state             VARCHAR(10) NOT NULL,
    backfill_id       BIGINT,
    actor             VARCHAR(100) NOT NULL,
    node_id           VARCHAR(100) NOT NULL,
    created_at        DATETIME(6) NOT NULL,
    updated_at        DATETIME(6) NOT NULL,
    finished_at       DATETIME(6),
    CONSTRAINT ax_workflow_run_slot_uq UNIQUE (workflow_id, fire_key),
    INDEX ax_workflow_run_workflow (workflow_id, id),
    INDEX ax_workflow_run_backfill (backfill_id, state)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_workflow_node_run (
    workflow_run_id  BIGINT NOT NULL,
    node_name        VARCHAR(64) NOT NULL,
    task_name        VARCHAR(100) NOT NULL,
    state            VARCHAR(10) NOT NULL,
    instance_id      BIGINT,
    attempts         INT NOT NULL,
    reason           LONGTEXT,
    noticed          BOOLEAN NOT NULL,
    updated_at       DATETIME(6) NOT NULL,
    PRIMARY KEY (workflow_run_id, node_name),
    INDEX ax_workflow_node_instance (instance_id, state),
    INDEX ax_workflow_node_unnoticed (noticed, workflow_run_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_workflow_backfill (
    id             BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    workflow_id    BIGINT NOT NULL,
    workflow_name  VARCHAR(100) NOT NULL,
    range_from     DATETIME(6) NOT NULL,
    range_to       DATETIME(6) NOT NULL,
    parallelism    INT NOT NULL,
    newest_first   BOOLEAN NOT NULL,
    params         LONGTEXT,
    state          VARCHAR(10) NOT NULL,
    total          INT NOT NULL,
    next_index     INT NOT NULL,
    created_by     VARCHAR(100) NOT NULL,
    created_at     DATETIME(6) NOT NULL,
    updated_at     DATETIME(6) NOT NULL,
    INDEX ax_workflow_backfill_state (state)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Sharded runs (policy.sharding): a run fans out into shards that executors claim separately.
CREATE TABLE ax_shard (
    instance_id       BIGINT NOT NULL,
    shard_index       INT NOT NULL,
    shard_total       INT NOT NULL,
    max_parallel      INT,
    executor_group    VARCHAR(100) NOT NULL,
    state             VARCHAR(20) NOT NULL,
    attempt           INT NOT NULL DEFAULT 0,
    ready_at          DATETIME(6) NOT NULL,
    executor_id       VARCHAR(200),
    lease_expires_at  DATETIME(6),
    pid               BIGINT,
    exit_code         INT,
    failure_kind      VARCHAR(32),
    message           LONGTEXT,
    started_at        DATETIME(6),
    finished_at       DATETIME(6),
    updated_at        DATETIME(6) NOT NULL,
    PRIMARY KEY (instance_id, shard_index),
    INDEX ax_shard_ready (state, executor_group, ready_at),
    INDEX ax_shard_lease (state, lease_expires_at),
    INDEX ax_shard_executor (executor_id, state)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Canary rollouts. At most one ACTIVE row per task: active_task_id is the task only while ACTIVE, and
-- unique (PostgreSQL's partial unique index ax_canary_active).
CREATE TABLE ax_canary (
    id              BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    task_id         BIGINT NOT NULL,
    task_name       VARCHAR(100) NOT NULL,
    stable_version  INT NOT NULL,
    canary_version  INT NOT NULL,
    percent         INT,
    runs            INT,
    margin_points   INT NOT NULL,
    min_runs        INT NOT NULL,
    state           VARCHAR(16) NOT NULL,
    started_at      DATETIME(6) NOT NULL,
    started_by      VARCHAR(100) NOT NULL,
    ended_at        DATETIME(6),
    ended_by        VARCHAR(100),
    end_reason      LONGTEXT,
    active_task_id  BIGINT GENERATED ALWAYS AS (CASE WHEN state = 'ACTIVE' THEN task_id END) VIRTUAL,
    CONSTRAINT ax_canary_share_ck CHECK ((percent IS NULL) <> (runs IS NULL)),
    CONSTRAINT ax_canary_active UNIQUE (active_task_id),
    INDEX ax_canary_task (task_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Environment labels of each task version (definition.environment), one row per label.
CREATE TABLE ax_task_label (
    task_id  BIGINT NOT NULL,
    version  INT NOT NULL,
    label    VARCHAR(100) NOT NULL,
    PRIMARY KEY (task_id, version, label)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Idempotency-Key of triggers. See ../postgresql/V36__trigger_keys.sql.
CREATE TABLE ax_trigger_key (
    task_id      BIGINT NOT NULL,
    idem_key     VARCHAR(200) NOT NULL,
    body_hash    VARCHAR(64) NOT NULL,
    instance_id  BIGINT,
    created_at   DATETIME(6) NOT NULL,
    PRIMARY KEY (task_id, idem_key),
    INDEX ax_trigger_key_created (created_at),
    INDEX ax_trigger_key_instance (instance_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Secrets, sealed by the server. See ../postgresql/V37__secrets.sql.
CREATE TABLE ax_secret (
    name        VARCHAR(100) NOT NULL PRIMARY KEY,
    ciphertext  LONGBLOB NOT NULL,
    nonce       LONGBLOB NOT NULL,
    key_id      VARCHAR(16) NOT NULL,
    created_at  DATETIME(6) NOT NULL,
    created_by  VARCHAR(100) NOT NULL,
    updated_at  DATETIME(6) NOT NULL,
    updated_by  VARCHAR(100) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_secret_generation (
    id          INT NOT NULL PRIMARY KEY,
    generation  BIGINT NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
INSERT INTO ax_secret_generation (id, generation) VALUES (1, 0);

-- Teams, the audit of every action, console sessions and sign-ins under way. See
-- ../postgresql/V38__teams_tokens_audit.sql.
CREATE TABLE ax_team (
    name         VARCHAR(100) NOT NULL PRIMARY KEY,
    description  VARCHAR(500),
    created_at   DATETIME(6) NOT NULL,
    created_by   VARCHAR(100) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_audit (
    id        BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    at        DATETIME(6) NOT NULL,
    actor     VARCHAR(100) NOT NULL,
    via       VARCHAR(120) NOT NULL,
    team      VARCHAR(100),
    address   VARCHAR(64),
    action    VARCHAR(64) NOT NULL,
    target    VARCHAR(200),
    outcome   VARCHAR(16) NOT NULL,
    status    INT NOT NULL,
    message   LONGTEXT,
    diff      LONGTEXT,
    INDEX ax_audit_at (at, id),
    INDEX ax_audit_actor (actor, id),
    INDEX ax_audit_team (team, id),
    INDEX ax_audit_target (target, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_console_session (
    id_hash     VARCHAR(64) NOT NULL PRIMARY KEY,
    person      VARCHAR(100) NOT NULL,
    grants      LONGTEXT NOT NULL,
    created_at  DATETIME(6) NOT NULL,
    expires_at  DATETIME(6) NOT NULL,
    INDEX ax_console_session_expires (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
CREATE TABLE ax_sso_login (
    state       VARCHAR(64) NOT NULL PRIMARY KEY,
    verifier    VARCHAR(128) NOT NULL,
    nonce       VARCHAR(64) NOT NULL,
    next_path   VARCHAR(500) NOT NULL,
    created_at  DATETIME(6) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- MariaDB only: the locks of Tx.lockKey. A key names the row of its hash (Tx.KEY_LOCK_SLOTS of them),
-- inserted the first time it is locked; the row lock lasts as long as the transaction, like
-- PostgreSQL's pg_advisory_xact_lock (MariaDB's GET_LOCK outlives it).
CREATE TABLE ax_key_lock (
    slot  INT NOT NULL PRIMARY KEY
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
