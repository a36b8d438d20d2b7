-- When an undecided approval request expires (policy.approval.timeoutSeconds).
ALTER TABLE ax_instance ADD COLUMN approval_deadline TIMESTAMP WITH TIME ZONE;
CREATE INDEX ax_instance_approval ON ax_instance (approval_deadline) WHERE state = 'WAITING_APPROVAL';
CREATE INDEX ax_instance_parent ON ax_instance (parent_id);
