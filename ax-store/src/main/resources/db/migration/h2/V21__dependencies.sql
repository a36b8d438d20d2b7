-- See ../postgresql/V21__dependencies.sql; H2 has no partial indexes.
ALTER TABLE ax_instance ADD COLUMN business_date DATE;
ALTER TABLE ax_instance ADD COLUMN dependency_deadline TIMESTAMP WITH TIME ZONE;
CREATE INDEX ax_instance_business_date ON ax_instance (task_id, business_date, id);
CREATE INDEX ax_instance_dependency_deadline ON ax_instance (state, dependency_deadline);
CREATE TABLE ax_task_dependency (
    task_id       BIGINT NOT NULL,
    upstream_name VARCHAR(100) NOT NULL,
    PRIMARY KEY (task_id, upstream_name)
);
CREATE INDEX ax_task_dependency_upstream ON ax_task_dependency (upstream_name, task_id);
