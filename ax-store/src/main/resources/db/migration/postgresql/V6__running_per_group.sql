-- Group capacity (SchedulerConfig.groupCapacity) counts a group's RUNNING runs at every claim.
CREATE INDEX ax_instance_running_group ON ax_instance (executor_group) WHERE state = 'RUNNING';
