-- The event log's status filter ("events whose latest delivery is FAILED") read a copy of that
-- status kept on trigger_event by statement-level triggers on delivery (migrations 0006, 0024,
-- 0026). Every delivery that finished therefore wrote its event row a second time: a non-HOT update
-- of the widest row on the path, a new entry in each of its six indexes and a trigger call per
-- statement. At the forwarding benchmark's maximum rate that UPDATE was 30 % of PostgreSQL's time in
-- the service's statements. The filter now walks delivery itself, whose row is written anyway: an
-- index of a deployment's deliveries by status in their events' keyset order, the event's
-- received_at copied onto the delivery when it is recorded (it never changes afterwards).
DROP TRIGGER "delivery_latest_status_inserted" ON "delivery";
DROP TRIGGER "delivery_latest_status_changed" ON "delivery";
DROP FUNCTION "trigger_event_latest_delivery_status_inserted"();
DROP FUNCTION "trigger_event_latest_delivery_status_changed"();
DROP FUNCTION "trigger_event_take_latest_delivery_status"(text[]);

DROP INDEX "trigger_event_deployment_id_latest_delivery_status_received_idx";
ALTER TABLE "trigger_event" DROP COLUMN "latest_delivery_status";

ALTER TABLE "delivery" ADD COLUMN "event_received_at" TIMESTAMP(3);
UPDATE "delivery" d SET "event_received_at" = e."received_at" FROM "trigger_event" e WHERE e."id" = d."event_id";
ALTER TABLE "delivery" ALTER COLUMN "event_received_at" SET NOT NULL;

CREATE INDEX "delivery_deployment_id_status_event_received_at_event_id_idx" ON "delivery"("deployment_id", "status", "event_received_at", "event_id");
