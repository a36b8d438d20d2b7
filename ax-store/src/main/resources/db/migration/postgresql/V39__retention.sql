-- History retention. The columns are nullable: PostgreSQL adds them without rewriting the table, so a
-- node upgrading a database that holds years of runs does not stall the nodes still firing.

-- A task's own policy.retention; null = the server's default (--retention-runs, keepLast 1).
ALTER TABLE ax_task ADD COLUMN retention_runs_ms BIGINT;
ALTER TABLE ax_task ADD COLUMN retention_failed_ms BIGINT;
ALTER TABLE ax_task ADD COLUMN retention_keep_last INT;

-- Retention keeps the run a trigger's Idempotency-Key still answers with; it asks by the run. The table
-- holds one idempotency window of keys, so building this takes moments.
CREATE INDEX ax_trigger_key_instance ON ax_trigger_key (instance_id) WHERE instance_id IS NOT NULL;
