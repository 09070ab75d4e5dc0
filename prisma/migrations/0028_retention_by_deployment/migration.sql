-- Retention walks each deployment's oldest events through the event log's (deployment_id,
-- received_at, id) index (src/retention/prune.ts), so the index that served only retention goes:
-- one index entry fewer written for every event accepted.
DROP INDEX "trigger_event_received_at_idx";
