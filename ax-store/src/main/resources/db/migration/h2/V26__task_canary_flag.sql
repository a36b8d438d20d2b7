-- Whether a task has an ACTIVE canary (ax_canary), on the task row that every admission and every
-- completion already reads: the many tasks without a canary then cost no look at ax_canary.
-- Set and cleared with the ax_canary row, under the task's row lock.
ALTER TABLE ax_task ADD COLUMN canary BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE ax_task SET canary = TRUE WHERE id IN (SELECT task_id FROM ax_canary WHERE state = 'ACTIVE');
