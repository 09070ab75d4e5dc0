/**
 * The migration that moved the event log's status filter from a copy on the event row to delivery:
 * an upgraded deployment's deliveries carry their events' received_at, so the filter lists exactly
 * what it listed before, in the same order.
 */
import { expect, test } from "vitest";
import { eventLogPage } from "../../src/forwarding/eventLog.ts";
import { databaseBefore } from "../helpers/migrationStep.ts";

test("each delivery takes its event's received_at, and the filter lists each event under its latest delivery's status", async () => {
  const { sql, migrateThrough } = await databaseBefore("_event_status_from_delivery");

  await sql.query(`insert into organization (id, name) values ('org1', 'Acme')`);
  await sql.query(`insert into deployment (id, organization_id, name) values ('dep1', 'org1', 'development')`);
  const event = (id: string, receivedAt: string) =>
    sql.query(
      `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, received_at, dedupe_key)
       values ($1, 'dep1', 'github', 'issue_opened', 'ada', '{}', $2, $2, $1)`,
      [id, receivedAt],
    );
  const delivery = (id: string, eventId: string, status: string, createdAt: string) =>
    sql.query(
      `insert into delivery (id, event_id, deployment_id, url, status, created_at, updated_at) values ($1, $2, 'dep1', 'https://example.com/hook', $3::"DeliveryStatus", $4, $4)`,
      [id, eventId, status, createdAt],
    );
  await event("evt_a", "2026-11-01T10:00:00.000Z");
  await event("evt_b", "2026-11-01T11:00:00.000Z");
  await event("evt_c", "2026-11-01T12:00:00.000Z");
  await delivery("dlv_a", "evt_a", "FAILED", "2026-11-01T10:00:00.000Z");
  await delivery("dlv_b1", "evt_b", "FAILED", "2026-11-01T11:00:00.000Z");
  await delivery("dlv_b2", "evt_b", "SUCCEEDED", "2026-11-02T09:00:00.000Z"); // a later delivery of b
  await delivery("dlv_c", "evt_c", "FAILED", "2026-11-01T12:00:00.000Z");

  await migrateThrough();
  const copied = await sql.query<{ id: string; event_received_at: string }>(
    `select id, to_char(event_received_at, 'YYYY-MM-DD"T"HH24:MI') as event_received_at from delivery order by id`,
  );
  expect(copied).toEqual([
    { id: "dlv_a", event_received_at: "2026-11-01T10:00" },
    { id: "dlv_b1", event_received_at: "2026-11-01T11:00" },
    { id: "dlv_b2", event_received_at: "2026-11-01T11:00" },
    { id: "dlv_c", event_received_at: "2026-11-01T12:00" },
  ]);
  const listed = async (status: "FAILED" | "SUCCEEDED") => (await eventLogPage(sql, "dep1", { status }, 10, null)).edges.map((edge) => edge.id);
  expect(await listed("FAILED")).toEqual(["evt_c", "evt_a"]);
  expect(await listed("SUCCEEDED")).toEqual(["evt_b"]);
});
