-- History retention; see ../postgresql/V39__retention.sql.
ALTER TABLE ax_task ADD COLUMN retention_runs_ms BIGINT;
ALTER TABLE ax_task ADD COLUMN retention_failed_ms BIGINT;
ALTER TABLE ax_task ADD COLUMN retention_keep_last INT;
CREATE INDEX ax_trigger_key_instance ON ax_trigger_key (instance_id);
