-- trigger_event.latest_delivery_status (migration 0006) was kept by two row-level triggers on
-- delivery: one PL/pgSQL call, and one UPDATE of trigger_event, per delivery inserted and per status
-- changed. Recording a batch of 50 events (one statement) then made 50 trigger calls, each finding the
-- status already set by the statement itself, and recording 50 attempts made 50 more. The same rule,
-- once per statement over its transition tables: one set-based UPDATE however many rows it touched.
-- "Latest" is still the delivery with the greatest (created_at, id) of its event.
DROP TRIGGER "delivery_latest_status_inserted" ON "delivery";
DROP TRIGGER "delivery_latest_status_changed" ON "delivery";
DROP FUNCTION "trigger_event_latest_delivery_status"();

-- Each touched event takes the status of its latest delivery, looked up through delivery's event_id
-- index one event at a time (a LATERAL with LIMIT 1): written as an anti-join over delivery, the
-- planner hashed the whole table for every statement, a cost that grew with the queue's history.
CREATE FUNCTION "trigger_event_take_latest_delivery_status"(event_ids text[]) RETURNS void LANGUAGE sql AS $$
  UPDATE "trigger_event" e SET "latest_delivery_status" = latest."status"
    FROM unnest(event_ids) AS touched("event_id")
   CROSS JOIN LATERAL (
     SELECT d."status" FROM "delivery" d WHERE d."event_id" = touched."event_id"
      ORDER BY d."created_at" DESC, d."id" DESC LIMIT 1
   ) latest
   WHERE e."id" = touched."event_id"
     AND e."latest_delivery_status" IS DISTINCT FROM latest."status";
$$;

CREATE FUNCTION "trigger_event_latest_delivery_status_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "trigger_event_take_latest_delivery_status"(ARRAY(SELECT DISTINCT "event_id" FROM "new_deliveries"));
  RETURN NULL;
END $$;

-- A statement-level trigger with transition tables cannot name columns (PostgreSQL refuses), so it
-- runs after every UPDATE of delivery (claims and lease renewals too): only the events of rows whose
-- status changed are looked at.
CREATE FUNCTION "trigger_event_latest_delivery_status_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "trigger_event_take_latest_delivery_status"(ARRAY(
    SELECT DISTINCT n."event_id" FROM "new_deliveries" n JOIN "old_deliveries" o ON o."id" = n."id"
     WHERE o."status" IS DISTINCT FROM n."status"));
  RETURN NULL;
END $$;

CREATE TRIGGER "delivery_latest_status_inserted" AFTER INSERT ON "delivery"
  REFERENCING NEW TABLE AS "new_deliveries"
  FOR EACH STATEMENT EXECUTE FUNCTION "trigger_event_latest_delivery_status_inserted"();

CREATE TRIGGER "delivery_latest_status_changed" AFTER UPDATE ON "delivery"
  REFERENCING OLD TABLE AS "old_deliveries" NEW TABLE AS "new_deliveries"
  FOR EACH STATEMENT EXECUTE FUNCTION "trigger_event_latest_delivery_status_changed"();
