-- Canary rollouts (PUT /api/tasks/{name}?rollout=canary). At most one ACTIVE row per task, decided
-- under the task's row lock; ended rollouts stay as history (PROMOTED, ROLLED_BACK).
CREATE TABLE ax_canary (
    id              BIGSERIAL PRIMARY KEY,
    task_id         BIGINT NOT NULL,
    task_name       VARCHAR(100) NOT NULL,
    stable_version  INT NOT NULL,
    canary_version  INT NOT NULL,
    percent         INT,
    runs            INT,            -- the next N new runs; how many went is counted from ax_instance
    margin_points   INT NOT NULL,
    min_runs        INT NOT NULL,
    state           VARCHAR(16) NOT NULL,
    started_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    started_by      VARCHAR(100) NOT NULL,
    ended_at        TIMESTAMP WITH TIME ZONE,
    ended_by        VARCHAR(100),
    end_reason      TEXT,
    CONSTRAINT ax_canary_share_ck CHECK ((percent IS NULL) <> (runs IS NULL))
);
CREATE UNIQUE INDEX ax_canary_active ON ax_canary (task_id) WHERE state = 'ACTIVE';
CREATE INDEX ax_canary_task ON ax_canary (task_id, id);

-- Environment labels of each task version (definition.environment), one row per label, so the
-- claim query can ask "does this run need a label the executor lacks?" with an index.
CREATE TABLE ax_task_label (
    task_id  BIGINT NOT NULL,
    version  INT NOT NULL,
    label    VARCHAR(100) NOT NULL,
    PRIMARY KEY (task_id, version, label)
);

-- Labels an executor registered with (ax executor --label prod).
CREATE TABLE ax_executor_label (
    executor_id  VARCHAR(200) NOT NULL,
    label        VARCHAR(100) NOT NULL,
    PRIMARY KEY (executor_id, label)
);
