-- Idempotency keys (policy.idempotencyKey) are looked up per task before a run is admitted.
CREATE INDEX ax_instance_request ON ax_instance (task_id, request_id);
