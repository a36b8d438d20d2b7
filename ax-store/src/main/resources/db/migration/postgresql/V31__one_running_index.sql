-- One index of the RUNNING runs instead of three (by lease, by executor, by executor group).
-- Every claim wrote an entry in each of the three; RUNNING runs are as many as executors have
-- slots, so the lease reaper and an executor's own runs read this one whole, which costs little.
-- And with no index on lease_expires_at a heartbeat changes no indexed column: PostgreSQL can
-- renew a lease in place (a HOT update) instead of adding an entry to every index of the table.
DROP INDEX ax_instance_lease;
DROP INDEX ax_instance_executor;
DROP INDEX ax_instance_running_group;
CREATE INDEX ax_instance_running ON ax_instance (executor_group, executor_id) WHERE state = 'RUNNING';
