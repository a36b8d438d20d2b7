-- Whether the firing loop may create a task's runs shortly before their slot (ready_at = the slot,
-- so they still start on time, never early): when admitting a run decides nothing that could change
-- in that time and nothing can make it ready before its slot — overflow ALLOW (no limit to find
-- full), no approval, no idempotency key, no dependsOn. Written with the definition
-- (TaskStore.firesAhead), like trigger_type and executor_group.
ALTER TABLE ax_task ADD COLUMN fires_ahead BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE ax_task SET fires_ahead = TRUE
 WHERE (CAST(definition AS JSONB) #>> '{policy,overflow}') = 'ALLOW'
   AND (CAST(definition AS JSONB) #>> '{policy,approval}') IS NULL
   AND (CAST(definition AS JSONB) #>> '{policy,idempotencyKey}') IS NULL
   AND (CAST(definition AS JSONB) -> 'dependsOn') IS NULL;
