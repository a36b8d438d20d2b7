-- An outbox of follow-ups (policy.onFailedActions): written in the transaction that fails the
-- run, carried out afterwards by any node, so a crash between the two loses nothing.
CREATE TABLE ax_follow_up (
    id           BIGSERIAL PRIMARY KEY,
    instance_id  BIGINT NOT NULL,
    task_id      BIGINT NOT NULL,
    position     INT NOT NULL,
    action       TEXT NOT NULL,
    state        VARCHAR(10) NOT NULL,
    attempts     INT NOT NULL DEFAULT 0,
    next_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    last_error   TEXT,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    done_at      TIMESTAMP WITH TIME ZONE,
    CONSTRAINT ax_follow_up_once UNIQUE (instance_id, position)
);
CREATE INDEX ax_follow_up_pending ON ax_follow_up (next_at) WHERE state = 'PENDING';
