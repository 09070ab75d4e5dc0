-- An event's payload is kept as the text it was written (json), not parsed into jsonb: the delivery
-- worker forwards that text as it is on every attempt, in the provider's key order, and PostgreSQL
-- no longer builds (and on every claim prints again) a binary form that no statement queries.
-- Rows written before keep jsonb's printing of them (keys reordered, spaces after ':' and ',').
ALTER TABLE "trigger_event" ALTER COLUMN "payload" SET DATA TYPE JSON;
