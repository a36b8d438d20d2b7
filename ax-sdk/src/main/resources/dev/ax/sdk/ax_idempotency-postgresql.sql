-- AX SDK: the idempotency record of IdempotencyStore (PostgreSQL). One row per request id whose work committed.
CREATE TABLE IF NOT EXISTS ax_idempotency (
    request_id VARCHAR(200) PRIMARY KEY,
    result     TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
