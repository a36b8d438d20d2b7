-- Task dependencies (dependsOn). A run's business date is its scheduled time in its task's zone
-- (what {{date}} renders); "sameDate" readiness looks up the newest upstream run of one date.
ALTER TABLE ax_instance ADD COLUMN business_date DATE;
-- When a run waiting for its dependencies gives up (scheduled time + dependencyPolicy.waitDeadline).
ALTER TABLE ax_instance ADD COLUMN dependency_deadline TIMESTAMP WITH TIME ZONE;
CREATE INDEX ax_instance_business_date ON ax_instance (task_id, business_date, id);
CREATE INDEX ax_instance_dependency_wait ON ax_instance (task_id, id) WHERE state = 'WAITING_DEPENDENCY';
CREATE INDEX ax_instance_dependency_deadline ON ax_instance (dependency_deadline) WHERE state = 'WAITING_DEPENDENCY';
-- Which tasks wait for which (dependsOn of each task's current version, its own name for
-- previousSlot): when a run of a task ends, its dependents are found by one indexed look and
-- locked before their waiting runs are read, so a run parked concurrently is never missed.
CREATE TABLE ax_task_dependency (
    task_id       BIGINT NOT NULL,
    upstream_name VARCHAR(100) NOT NULL,
    PRIMARY KEY (task_id, upstream_name)
);
CREATE INDEX ax_task_dependency_upstream ON ax_task_dependency (upstream_name, task_id);
