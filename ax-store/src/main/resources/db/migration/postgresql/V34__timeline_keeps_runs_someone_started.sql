-- A task's timeline keeps the runs that someone started: a manual or API trigger's CREATED event
-- names who. Only the scheduler's own CREATED events are routine (EventStore.NOT_ROUTINE, word for
-- word), with every run's CLAIMED, STARTED and SUCCEEDED.
DROP INDEX ax_event_task;
CREATE INDEX ax_event_task ON ax_event (task_id, id)
    WHERE type NOT IN ('CLAIMED', 'STARTED', 'SUCCEEDED') AND (type <> 'CREATED' OR actor <> 'scheduler');
