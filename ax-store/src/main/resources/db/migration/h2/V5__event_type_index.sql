-- The per-task counters (OVERLAP_SKIPPED, QUEUE_DROPPED, MISFIRE_*) count a task's events by type.
CREATE INDEX ax_event_task_type ON ax_event (task_id, type);
