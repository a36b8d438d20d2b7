-- AX SDK: the idempotency record of IdempotencyStore (MariaDB, MySQL). One row per request id whose work committed.
-- InnoDB: the primary key's row lock is what makes an overlapping attempt wait; a byte-wise collation keeps request
-- ids that differ in case apart.
CREATE TABLE IF NOT EXISTS ax_idempotency (
    request_id VARCHAR(200) NOT NULL PRIMARY KEY,
    result     LONGTEXT,
    created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
