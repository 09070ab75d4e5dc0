-- The two statement-level status triggers of migration 0024 called a LANGUAGE sql function, whose
-- UPDATE PostgreSQL plans again on every call (a SQL function's plan lives for one call only): one
-- plan of a LATERAL join per statement that inserts or updates delivery — every claim and every
-- recorded batch — even when no event was touched. As PL/pgSQL the UPDATE is planned once per
-- connection. The rule is unchanged: each touched event takes the status of its latest delivery.
CREATE OR REPLACE FUNCTION "trigger_event_take_latest_delivery_status"(event_ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(event_ids) = 0 THEN
    RETURN;
  END IF;
  UPDATE "trigger_event" e SET "latest_delivery_status" = latest."status"
    FROM unnest(event_ids) AS touched("event_id")
   CROSS JOIN LATERAL (
     SELECT d."status" FROM "delivery" d WHERE d."event_id" = touched."event_id"
      ORDER BY d."created_at" DESC, d."id" DESC LIMIT 1
   ) latest
   WHERE e."id" = touched."event_id"
     AND e."latest_delivery_status" IS DISTINCT FROM latest."status";
END $$;

-- A new delivery can change its event's status only when the status it starts with differs from the
-- event's: the same status either makes no change (it is the latest) or none is due (it is not, and
-- the event already shows its latest's). The accepting statement writes each event with its new
-- delivery's status, so its deliveries are skipped here without a lookup in delivery.
CREATE OR REPLACE FUNCTION "trigger_event_latest_delivery_status_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "trigger_event_take_latest_delivery_status"(ARRAY(
    SELECT DISTINCT n."event_id" FROM "new_deliveries" n JOIN "trigger_event" e ON e."id" = n."event_id"
     WHERE e."latest_delivery_status" IS DISTINCT FROM n."status"));
  RETURN NULL;
END $$;
