CREATE TABLE IF NOT EXISTS orders (
    id         BIGINT AUTO_INCREMENT PRIMARY KEY,
    request_id VARCHAR(200) NOT NULL,
    slot       TIMESTAMP,
    source     VARCHAR(50) NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The AX SDK's idempotency record (the H2 migration shipped in ax-sdk: dev/ax/sdk/ax_idempotency-h2.sql).
CREATE TABLE IF NOT EXISTS ax_idempotency (
    request_id VARCHAR(200) PRIMARY KEY,
    result     CHARACTER VARYING,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
