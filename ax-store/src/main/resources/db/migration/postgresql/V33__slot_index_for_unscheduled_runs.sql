-- A scheduled run (cron, interval) is keyed by its slot, ISO-8601 (Firing.fireKey), so the unique
-- (task, fire key) index every run writes anyway finds a task's scheduled runs by slot (SlotKeys).
-- The index by slot keeps only the other runs (manual, event, backfill, ...): like V32, one write
-- less into a page of its own task for every scheduled run of every task.
DROP INDEX ax_instance_task_slot;
CREATE INDEX ax_instance_task_slot ON ax_instance (task_id, scheduled_at) WHERE cause NOT IN ('CRON', 'INTERVAL');
