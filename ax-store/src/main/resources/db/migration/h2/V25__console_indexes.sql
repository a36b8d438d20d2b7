-- See ../postgresql/V25__run_kind_index.sql. H2 has no partial indexes, and a full (cause, id)
-- index would cost every run a write on the embedded database for a filter it serves fast enough
-- at its scale: only the audit log's index.
CREATE INDEX ax_task_version_time ON ax_task_version (created_at, task_id, version);
