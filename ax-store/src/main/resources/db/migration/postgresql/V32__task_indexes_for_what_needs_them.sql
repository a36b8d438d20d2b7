-- An index that starts with the task is written in that task's own part of it: with 10,000 tasks
-- running every second, each such index takes a write into 10,000 different pages a second, more
-- than PostgreSQL's buffers keep (every page comes back from the disk cache, is logged whole after
-- each checkpoint, and is written out again). Two of them now hold only the rows that are asked for.

-- A run has a business date only when another task depends on its task (Dependencies.dated); the
-- others' runs are found by their slot when a dependency on them is added later.
DROP INDEX ax_instance_business_date;
CREATE INDEX ax_instance_business_date ON ax_instance (task_id, business_date, id) WHERE business_date IS NOT NULL;

-- A task's timeline leaves out the routine transitions of its runs (EventStore.forTask); each run's
-- own events (by ax_event_instance) keep them.
DROP INDEX ax_event_task;
CREATE INDEX ax_event_task ON ax_event (task_id, id) WHERE type NOT IN ('CREATED', 'CLAIMED', 'STARTED', 'SUCCEEDED');
