-- Idempotency-Key of POST /api/trigger and /api/tasks/{name}/trigger: a caller that sends the same
-- request again (a retry after a timeout) is answered with the run the first one made. The primary
-- key decides it, whatever the number of nodes: the row is written in the transaction that creates
-- the run, so a second transaction with the same key waits for the first and then finds its row.
--
-- body_hash: SHA-256 of the request (task name, params, force) as canonical JSON; the same key with
--            another request is refused (422), not answered with a run it did not ask for.
-- instance_id: the run the key answers with. Written in the same transaction as the row, so no other
--            transaction ever sees it empty.
-- created_at: the start of the key's window (SchedulerConfig.idempotencyWindow); a key past it is
--            taken over by the next request with it, and deleted by housekeeping.
CREATE TABLE ax_trigger_key (
    task_id      BIGINT NOT NULL,
    idem_key     VARCHAR(200) NOT NULL,
    body_hash    VARCHAR(64) NOT NULL,
    instance_id  BIGINT,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (task_id, idem_key)
);
-- Housekeeping deletes expired keys oldest first, a bounded batch at a time.
CREATE INDEX ax_trigger_key_created ON ax_trigger_key (created_at);
