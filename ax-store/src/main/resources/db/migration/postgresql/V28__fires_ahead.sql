-- Whether the firing loop may create a task's runs shortly before their slot (ready_at = the slot,
-- so they still start on time, not early): true when admitting a run decides nothing that could
-- change in that time, which is overflow ALLOW (no concurrency limit to find full). Written with
-- the definition, like trigger_type and executor_group.
ALTER TABLE ax_task ADD COLUMN fires_ahead BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE ax_task SET fires_ahead = TRUE WHERE (CAST(definition AS JSONB) #>> '{policy,overflow}') = 'ALLOW';
