-- Workflows (issue 7): tasks joined into a graph with one trigger. The H2 twin
-- (../h2/V22__workflows.sql) differs only where the dialects do.

CREATE TABLE ax_workflow (
    id            BIGSERIAL PRIMARY KEY,
    name          VARCHAR(100) NOT NULL,
    version       INT NOT NULL,
    definition    TEXT NOT NULL,
    enabled       BOOLEAN NOT NULL,
    next_fire_at  TIMESTAMP WITH TIME ZONE,
    created_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by    VARCHAR(100) NOT NULL,
    updated_at    TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_by    VARCHAR(100) NOT NULL,
    CONSTRAINT ax_workflow_name_uq UNIQUE (name)
);
CREATE INDEX ax_workflow_due ON ax_workflow (next_fire_at) WHERE enabled AND next_fire_at IS NOT NULL;

-- One run of a workflow. Like an instance, a time-triggered run is keyed by its slot: the unique
-- (workflow, fire key) makes a second run for one slot impossible, whatever the number of nodes.
-- definition: the graph as it was when the run was created (an edit does not change a running run).
CREATE TABLE ax_workflow_run (
    id                BIGSERIAL PRIMARY KEY,
    workflow_id       BIGINT NOT NULL,
    workflow_name     VARCHAR(100) NOT NULL,
    workflow_version  INT NOT NULL,
    definition        TEXT NOT NULL,
    cause             VARCHAR(16) NOT NULL,
    fire_key          VARCHAR(100) NOT NULL,
    scheduled_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    params            TEXT,
    state             VARCHAR(10) NOT NULL,
    backfill_id       BIGINT,
    actor             VARCHAR(100) NOT NULL,
    node_id           VARCHAR(100) NOT NULL,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    finished_at       TIMESTAMP WITH TIME ZONE,
    CONSTRAINT ax_workflow_run_slot_uq UNIQUE (workflow_id, fire_key)
);
CREATE INDEX ax_workflow_run_workflow ON ax_workflow_run (workflow_id, id);
CREATE INDEX ax_workflow_run_backfill ON ax_workflow_run (backfill_id, state) WHERE backfill_id IS NOT NULL;

-- One node of one run: its state, its current instance and how many instances it has had.
-- noticed = FALSE: the node's instance ended and the run has not yet acted on it (started the
-- nodes below, skipped them, or finished); the workflow loop picks those runs up.
CREATE TABLE ax_workflow_node_run (
    workflow_run_id  BIGINT NOT NULL,
    node_name        VARCHAR(64) NOT NULL,
    task_name        VARCHAR(100) NOT NULL,
    state            VARCHAR(10) NOT NULL,
    instance_id      BIGINT,
    attempts         INT NOT NULL,
    reason           TEXT,
    noticed          BOOLEAN NOT NULL,
    updated_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (workflow_run_id, node_name)
);
CREATE INDEX ax_workflow_node_instance ON ax_workflow_node_run (instance_id) WHERE state = 'RUNNING';
CREATE INDEX ax_workflow_node_unnoticed ON ax_workflow_node_run (workflow_run_id) WHERE NOT noticed;

-- A backfill of a workflow: one run per slot of its trigger in a date range, parallelism at a time.
CREATE TABLE ax_workflow_backfill (
    id             BIGSERIAL PRIMARY KEY,
    workflow_id    BIGINT NOT NULL,
    workflow_name  VARCHAR(100) NOT NULL,
    range_from     TIMESTAMP WITH TIME ZONE NOT NULL,
    range_to       TIMESTAMP WITH TIME ZONE NOT NULL,
    parallelism    INT NOT NULL,
    newest_first   BOOLEAN NOT NULL,
    params         TEXT,
    state          VARCHAR(10) NOT NULL,
    total          INT NOT NULL,
    next_index     INT NOT NULL,
    created_by     VARCHAR(100) NOT NULL,
    created_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at     TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ax_workflow_backfill_state ON ax_workflow_backfill (state);

-- Every instance a workflow run created, reruns included, points at its run.
ALTER TABLE ax_instance ADD COLUMN workflow_run_id BIGINT;
CREATE INDEX ax_instance_workflow_run ON ax_instance (workflow_run_id) WHERE workflow_run_id IS NOT NULL;
-- Workflow events (run started, node skipped, rerun, finished) name their run.
ALTER TABLE ax_event ADD COLUMN workflow_run_id BIGINT;
CREATE INDEX ax_event_workflow_run ON ax_event (workflow_run_id, id) WHERE workflow_run_id IS NOT NULL;
