-- Secrets ({{secret.NAME}}), sealed by the server with AES-256-GCM (ax-scheduler Secrets): never stored in plain text.
-- A fresh 96-bit nonce per value; the name is the seal's associated data, so a ciphertext moved to another name does
-- not open. key_id names the master key that sealed the row (the first 8 bytes of its SHA-256, in hex): a node whose
-- key differs says so, naming both ids. The H2 twin (../h2/V37__secrets.sql) differs only in the binary type.
CREATE TABLE ax_secret (
    name        VARCHAR(100) PRIMARY KEY,
    ciphertext  BYTEA NOT NULL,
    nonce       BYTEA NOT NULL,
    key_id      VARCHAR(16) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by  VARCHAR(100) NOT NULL,
    updated_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_by  VARCHAR(100) NOT NULL
);

-- One row, locked first and bumped by every change of ax_secret in that change's transaction: changes are serialised
-- across nodes, and a node learns that the secrets changed (to mask the new values in what it stores and shows) from
-- one read of a primary key. A timestamp could not tell: two changes committed in the other order than they began
-- leave the newest updated_at where it was.
CREATE TABLE ax_secret_generation (
    id          INT PRIMARY KEY,
    generation  BIGINT NOT NULL
);
INSERT INTO ax_secret_generation (id, generation) VALUES (1, 0);
