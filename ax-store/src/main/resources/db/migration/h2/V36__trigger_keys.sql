-- See ../postgresql/V36__trigger_keys.sql: the same table.
CREATE TABLE ax_trigger_key (
    task_id      BIGINT NOT NULL,
    idem_key     VARCHAR(200) NOT NULL,
    body_hash    VARCHAR(64) NOT NULL,
    instance_id  BIGINT,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (task_id, idem_key)
);
CREATE INDEX ax_trigger_key_created ON ax_trigger_key (created_at);
