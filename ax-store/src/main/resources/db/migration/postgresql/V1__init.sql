-- AX schema, PostgreSQL. The H2 twin (../h2/V1__init.sql) differs only where the dialects do.

CREATE TABLE ax_task (
    id              BIGSERIAL PRIMARY KEY,
    name            VARCHAR(100) NOT NULL,
    version         INT NOT NULL,
    definition      TEXT NOT NULL,
    trigger_type    VARCHAR(16) NOT NULL,
    executor_group  VARCHAR(100) NOT NULL,
    enabled         BOOLEAN NOT NULL,
    next_fire_at    TIMESTAMP WITH TIME ZONE,
    created_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by      VARCHAR(100) NOT NULL,
    updated_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_by      VARCHAR(100) NOT NULL,
    CONSTRAINT ax_task_name_uq UNIQUE (name)
);
-- The firing claim reads only enabled tasks with a due slot.
CREATE INDEX ax_task_due ON ax_task (next_fire_at) WHERE enabled AND next_fire_at IS NOT NULL;

-- Every change of a task: the audit log. Kept when the task is deleted.
CREATE TABLE ax_task_version (
    task_id     BIGINT NOT NULL,
    version     INT NOT NULL,
    task_name   VARCHAR(100) NOT NULL,
    change      VARCHAR(16) NOT NULL,
    definition  TEXT,
    diff        TEXT,
    actor       VARCHAR(100) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (task_id, version)
);
CREATE INDEX ax_task_version_name ON ax_task_version (task_name, task_id, version);

CREATE TABLE ax_instance (
    id                BIGSERIAL PRIMARY KEY,
    task_id           BIGINT NOT NULL,
    task_name         VARCHAR(100) NOT NULL,
    task_version      INT NOT NULL,
    cause             VARCHAR(16) NOT NULL,
    fire_key          VARCHAR(100) NOT NULL,
    scheduled_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    params            TEXT,
    state             VARCHAR(20) NOT NULL,
    attempt           INT NOT NULL DEFAULT 0,
    max_attempts      INT NOT NULL,
    executor_group    VARCHAR(100) NOT NULL,
    ready_at          TIMESTAMP WITH TIME ZONE NOT NULL,
    executor_id       VARCHAR(200),
    lease_expires_at  TIMESTAMP WITH TIME ZONE,
    pid               BIGINT,
    exit_code         INT,
    failure_kind      VARCHAR(32),
    message           TEXT,
    actor             VARCHAR(100) NOT NULL,
    node_id           VARCHAR(100) NOT NULL,
    parent_id         BIGINT,
    root_id           BIGINT,
    request_id        VARCHAR(200),
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    started_at        TIMESTAMP WITH TIME ZONE,
    finished_at       TIMESTAMP WITH TIME ZONE,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    -- Invariant 1: one instance per (task, slot), whatever the nodes, clocks or crashes.
    CONSTRAINT ax_instance_slot_uq UNIQUE (task_id, fire_key)
);
CREATE INDEX ax_instance_ready ON ax_instance (executor_group, ready_at, id) WHERE state = 'READY';
CREATE INDEX ax_instance_lease ON ax_instance (lease_expires_at) WHERE state = 'RUNNING';
CREATE INDEX ax_instance_retry ON ax_instance (ready_at) WHERE state = 'RETRYING';
CREATE INDEX ax_instance_task ON ax_instance (task_id, id);
CREATE INDEX ax_instance_state ON ax_instance (state, id);
CREATE INDEX ax_instance_executor ON ax_instance (executor_id) WHERE state = 'RUNNING';

-- Append-only: every transition and every decision.
CREATE TABLE ax_event (
    id           BIGSERIAL PRIMARY KEY,
    instance_id  BIGINT,
    task_id      BIGINT,
    task_name    VARCHAR(100),
    type         VARCHAR(32) NOT NULL,
    from_state   VARCHAR(20),
    to_state     VARCHAR(20),
    attempt      INT,
    actor        VARCHAR(100) NOT NULL,
    node_id      VARCHAR(100) NOT NULL,
    at           TIMESTAMP WITH TIME ZONE NOT NULL,
    message      TEXT,
    data         TEXT
);
CREATE INDEX ax_event_instance ON ax_event (instance_id, id);
CREATE INDEX ax_event_task ON ax_event (task_id, id);

-- Run output, in chunks of lines as executors send them.
CREATE TABLE ax_log (
    id           BIGSERIAL PRIMARY KEY,
    instance_id  BIGINT NOT NULL,
    attempt      INT NOT NULL,
    stream       VARCHAR(6) NOT NULL,
    at           TIMESTAMP WITH TIME ZONE NOT NULL,
    text         TEXT NOT NULL
);
CREATE INDEX ax_log_instance ON ax_log (instance_id, id);

CREATE TABLE ax_executor (
    id            VARCHAR(200) PRIMARY KEY,
    session       VARCHAR(64) NOT NULL,
    host          VARCHAR(200),
    pid           BIGINT,
    version       VARCHAR(50),
    started_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    last_seen_at  TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE TABLE ax_executor_group (
    executor_id  VARCHAR(200) NOT NULL,
    group_name   VARCHAR(100) NOT NULL,
    PRIMARY KEY (executor_id, group_name)
);
CREATE INDEX ax_executor_group_name ON ax_executor_group (group_name);

CREATE TABLE ax_token (
    id          BIGSERIAL PRIMARY KEY,
    name        VARCHAR(100) NOT NULL,
    token_hash  VARCHAR(64) NOT NULL,
    role        VARCHAR(16) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by  VARCHAR(100) NOT NULL,
    CONSTRAINT ax_token_hash_uq UNIQUE (token_hash)
);
