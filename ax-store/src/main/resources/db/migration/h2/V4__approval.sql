-- See ../postgresql/V4__approval.sql.
ALTER TABLE ax_instance ADD COLUMN approval_deadline TIMESTAMP WITH TIME ZONE;
CREATE INDEX ax_instance_approval ON ax_instance (state, approval_deadline);
CREATE INDEX ax_instance_parent ON ax_instance (parent_id);
