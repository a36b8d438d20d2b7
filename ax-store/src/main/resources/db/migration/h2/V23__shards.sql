-- See ../postgresql/V23__shards.sql; H2 has no partial indexes.
CREATE TABLE ax_shard (
    instance_id       BIGINT NOT NULL,
    shard_index       INT NOT NULL,
    shard_total       INT NOT NULL,
    max_parallel      INT,
    executor_group    VARCHAR(100) NOT NULL,
    state             VARCHAR(20) NOT NULL,
    attempt           INT NOT NULL DEFAULT 0,
    ready_at          TIMESTAMP WITH TIME ZONE NOT NULL,
    executor_id       VARCHAR(200),
    lease_expires_at  TIMESTAMP WITH TIME ZONE,
    pid               BIGINT,
    exit_code         INT,
    failure_kind      VARCHAR(32),
    message           TEXT,
    started_at        TIMESTAMP WITH TIME ZONE,
    finished_at       TIMESTAMP WITH TIME ZONE,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (instance_id, shard_index)
);
CREATE INDEX ax_shard_ready ON ax_shard (state, executor_group, ready_at);
CREATE INDEX ax_shard_lease ON ax_shard (state, lease_expires_at);
CREATE INDEX ax_shard_executor ON ax_shard (executor_id, state);
ALTER TABLE ax_log ADD COLUMN shard_index INT;
