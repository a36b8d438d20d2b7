-- Housekeeping asks every tick which tasks have runs waiting for a concurrency slot (BLOCKED: rare).
-- The (task, state) index of active runs answered by reading every active entry, 60 ms with a
-- backlog of 140,000 READY runs. This one holds only the blocked runs: the question costs nothing,
-- and no other run writes an entry in it.
CREATE INDEX ax_instance_blocked ON ax_instance (task_id) WHERE state = 'BLOCKED';
