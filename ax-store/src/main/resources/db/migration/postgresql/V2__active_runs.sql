-- Counting a task's active and waiting runs happens under its row lock for every new run and
-- every finished one (the concurrency gate): keep it an index-only look at a small index.
CREATE INDEX ax_instance_active ON ax_instance (task_id, state, id)
    WHERE state IN ('READY', 'RUNNING', 'RETRYING', 'WAITING_APPROVAL', 'BLOCKED');
