-- The runs list filtered by a rare kind (manual, backfill, retry, …) over a long history: without
-- an index it walks every run newest-first. Scheduled runs, the bulk of the table and of the write
-- rate, stay out of the index, so they pay nothing for it.
CREATE INDEX ax_instance_kind ON ax_instance (cause, id) WHERE cause NOT IN ('CRON', 'INTERVAL');

-- The audit log pages every task's versions newest first: a walk of this index, not a sort of
-- the whole history (versions are written rarely, so the index costs nothing that matters).
CREATE INDEX ax_task_version_time ON ax_task_version (created_at, task_id, version);
