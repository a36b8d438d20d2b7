-- See ../postgresql/V6__running_per_group.sql; H2 has no partial indexes.
CREATE INDEX ax_instance_running_group ON ax_instance (executor_group, state);
