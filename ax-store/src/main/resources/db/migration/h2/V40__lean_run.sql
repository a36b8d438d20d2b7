-- A lean run: the routine steps of a run (claimed, started, succeeded) are read from the run's own
-- columns instead of being written as events (docs/architecture.md, "The event log"). These say what
-- those events said beyond the run's other columns: which node handed the run out, took its start
-- and its end, and when the process started. Nullable: added without rewriting the table.
ALTER TABLE ax_instance ADD COLUMN claim_node VARCHAR(100);
ALTER TABLE ax_instance ADD COLUMN pid_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE ax_instance ADD COLUMN start_node VARCHAR(100);
ALTER TABLE ax_instance ADD COLUMN end_node VARCHAR(100);
