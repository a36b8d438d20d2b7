-- Sharded runs (policy.sharding): an instance fans out into shards that executors claim
-- separately. The instance stays what users see; each shard has its own attempt (its fencing
-- token), lease, pid, exit code and log.
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
CREATE INDEX ax_shard_ready ON ax_shard (executor_group, ready_at) WHERE state IN ('READY', 'RETRYING');
CREATE INDEX ax_shard_lease ON ax_shard (lease_expires_at) WHERE state = 'RUNNING';
CREATE INDEX ax_shard_executor ON ax_shard (executor_id) WHERE state = 'RUNNING';
-- Each shard has its own log; NULL for runs that are not sharded.
ALTER TABLE ax_log ADD COLUMN shard_index INT;
