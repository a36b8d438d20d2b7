-- Most runs have no parent (only retries, re-runs, previews and compensations do) and no
-- idempotency key: index only the rows that have one. Every state change of a run writes a new
-- row version that is added to every index whose predicate it meets, so a full index on a
-- mostly-NULL column was paid three times per run for nothing. Lookups are by equality
-- (parent_id = ?, request_id = ?), which the planner proves NOT NULL, so they still use them.
DROP INDEX ax_instance_parent;
CREATE INDEX ax_instance_parent ON ax_instance (parent_id) WHERE parent_id IS NOT NULL;
DROP INDEX ax_instance_request;
CREATE INDEX ax_instance_request ON ax_instance (task_id, request_id) WHERE request_id IS NOT NULL;
