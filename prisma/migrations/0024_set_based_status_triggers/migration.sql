-- trigger_event.latest_delivery_status (migration 0006) was kept by two row-level triggers on
-- delivery: one PL/pgSQL call, and one UPDATE of trigger_event, per delivery inserted and per status
-- changed. Recording a batch of 50 events (one statement) then made 50 trigger calls, each finding the
-- status already set by the statement itself, and recording 50 attempts made 50 more. The same rule,
-- once per statement over its transition tables: one set-based UPDATE however many rows it touched.
-- "Latest" is still the delivery with the greatest (created_at, id) of its event.
DROP TRIGGER "delivery_latest_status_inserted" ON "delivery";
DROP TRIGGER "delivery_latest_status_changed" ON "delivery";
DROP FUNCTION "trigger_event_latest_delivery_status"();

CREATE FUNCTION "trigger_event_latest_delivery_status_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "trigger_event" e SET "latest_delivery_status" = n."status"
    FROM "new_deliveries" n
   WHERE e."id" = n."event_id"
     AND e."latest_delivery_status" IS DISTINCT FROM n."status"
     AND NOT EXISTS (
       SELECT 1 FROM "delivery" d
        WHERE d."event_id" = n."event_id" AND (d."created_at", d."id") > (n."created_at", n."id")
     );
  RETURN NULL;
END $$;

-- A statement-level trigger with transition tables cannot name columns (PostgreSQL refuses), so it
-- runs after every UPDATE of delivery (claims and lease renewals too): it joins the old and new rows
-- by id and writes only where the status changed.
CREATE FUNCTION "trigger_event_latest_delivery_status_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "trigger_event" e SET "latest_delivery_status" = n."status"
    FROM "new_deliveries" n
    JOIN "old_deliveries" o ON o."id" = n."id"
   WHERE o."status" IS DISTINCT FROM n."status"
     AND e."id" = n."event_id"
     AND e."latest_delivery_status" IS DISTINCT FROM n."status"
     AND NOT EXISTS (
       SELECT 1 FROM "delivery" d
        WHERE d."event_id" = n."event_id" AND (d."created_at", d."id") > (n."created_at", n."id")
     );
  RETURN NULL;
END $$;

CREATE TRIGGER "delivery_latest_status_inserted" AFTER INSERT ON "delivery"
  REFERENCING NEW TABLE AS "new_deliveries"
  FOR EACH STATEMENT EXECUTE FUNCTION "trigger_event_latest_delivery_status_inserted"();

CREATE TRIGGER "delivery_latest_status_changed" AFTER UPDATE ON "delivery"
  REFERENCING OLD TABLE AS "old_deliveries" NEW TABLE AS "new_deliveries"
  FOR EACH STATEMENT EXECUTE FUNCTION "trigger_event_latest_delivery_status_changed"();
