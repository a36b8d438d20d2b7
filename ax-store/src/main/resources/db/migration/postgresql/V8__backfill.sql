-- Backfills: one object per request, its slots created a few at a time by the housekeeping loop.
CREATE TABLE ax_backfill (
    id           BIGSERIAL PRIMARY KEY,
    task_id      BIGINT NOT NULL,
    task_name    VARCHAR(100) NOT NULL,
    range_from   TIMESTAMP WITH TIME ZONE NOT NULL,
    range_to     TIMESTAMP WITH TIME ZONE NOT NULL,
    parallelism  INT NOT NULL,
    reprocess    VARCHAR(10) NOT NULL,
    newest_first BOOLEAN NOT NULL,
    params       TEXT,
    state        VARCHAR(10) NOT NULL,
    total        INT NOT NULL,
    next_index   INT NOT NULL,
    created_by   VARCHAR(100) NOT NULL,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at   TIMESTAMP WITH TIME ZONE NOT NULL
);
CREATE INDEX ax_backfill_running ON ax_backfill (state);
CREATE INDEX ax_backfill_task ON ax_backfill (task_id, id);
ALTER TABLE ax_instance ADD COLUMN backfill_id BIGINT;
CREATE INDEX ax_instance_backfill ON ax_instance (backfill_id, state) WHERE backfill_id IS NOT NULL;
