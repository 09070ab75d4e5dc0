/**
 * The migration that stores an event's payload as `json` (as written) instead of `jsonb`: an event
 * stored before it is still claimed and forwarded after it, its data the same value, now in the
 * text `jsonb` printed it as.
 */
import { expect, test } from "vitest";
import { forwardedBody } from "../../src/delivery/forwardedRequest.ts";
import { claim } from "../../src/delivery/queue/claim.ts";
import { databaseBefore } from "../helpers/migrationStep.ts";

test("an event stored as jsonb before the upgrade is claimed and forwarded with the same data after it", async () => {
  const { sql, migrateThrough } = await databaseBefore("_event_payload_as_written");
  const data = { zeta: 1, action: "opened", issue: { number: 42, labels: ["bug"], body: "Ünïcode ✓", closed_at: null } };

  await sql.query(`insert into organization (id, name) values ('org1', 'Acme')`);
  await sql.query(`insert into deployment (id, organization_id, name) values ('dep1', 'org1', 'development')`);
  await sql.query(`insert into forwarding_settings (deployment_id, forwarding_url, updated_at) values ('dep1', 'https://example.com/hook', now())`);
  await sql.query(
    `insert into trigger_event (id, deployment_id, connector, trigger, account, payload, occurred_at, received_at, dedupe_key)
     values ('evt_old', 'dep1', 'github', 'issue_opened', 'ada', $1::jsonb, '2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z', 'old')`,
    [JSON.stringify(data)],
  );
  await sql.query(
    `insert into delivery (id, event_id, deployment_id, url, status, next_attempt_at, created_at, updated_at, event_received_at)
     values ('dlv_old', 'evt_old', 'dep1', 'https://example.com/hook', 'PENDING', '2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z', '2026-11-01T10:00:00Z')`,
  );

  await migrateThrough();
  const [{ type }] = await sql.query<{ type: string }>(
    `select data_type as type from information_schema.columns where table_name = 'trigger_event' and column_name = 'payload'`,
  );
  expect(type).toBe("json");
  const { claimed } = await claim(sql, 10, 30_000, 10, new Date("2026-11-01T10:00:01Z"));
  expect(claimed.map((delivery) => delivery.id)).toEqual(["dlv_old"]);
  const body = JSON.parse(forwardedBody(claimed[0].event, "dep1"));
  expect(body).toMatchObject({ id: "evt_old", type: "github.issue_opened", deploymentId: "dep1" });
  expect(body.data).toEqual(data);
});
