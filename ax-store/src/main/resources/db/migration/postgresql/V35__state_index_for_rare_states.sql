-- The index by state holds only the states nobody finds another way. Every run was READY, then
-- RUNNING, then SUCCESS, and wrote an entry here each time: three of the run's index entries, for
-- questions that READY's and RUNNING's own partial indexes answer (ax_instance_ready,
-- ax_instance_running) or that nobody asks of SUCCESS (the newest runs by id find successes at once).
-- Readers write the state into the statement (InstanceStore.countInStates, the run lists), so the
-- planner can see it falls under this predicate.
DROP INDEX ax_instance_state;
CREATE INDEX ax_instance_state ON ax_instance (state, id) WHERE state NOT IN ('READY', 'RUNNING', 'SUCCESS');
