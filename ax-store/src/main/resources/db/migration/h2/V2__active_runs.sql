-- See ../postgresql/V2__active_runs.sql; H2 has no partial indexes.
CREATE INDEX ax_instance_active ON ax_instance (task_id, state, id);
