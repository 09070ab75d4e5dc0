/**
 * The migration that came with tokens in app-keyed subscription URLs (Box, monday, Jira): a live
 * subscription made before it (its URL without a token, which is now refused) is made again — back
 * to PENDING and due, its provider id kept so the manager deletes the old one once the new exists.
 * Other connectors' subscriptions, and rows no trigger needs any more, are left as they are.
 */
import { expect, test } from "vitest";
import { databaseBefore } from "../helpers/migrationStep.ts";

test("Box, monday and Jira subscriptions made before URL tokens are made again; others are untouched", async () => {
  const { sql, migrateThrough } = await databaseBefore("_remake_app_keyed_subscriptions");

  const now = new Date().toISOString();
  await sql.query(`insert into organization (id, name) values ('org1', 'Acme')`);
  await sql.query(`insert into deployment (id, organization_id, name) values ('dep1', 'org1', 'development')`);
  const subscription = async (id: string, connector: string, status: string, events: string[]) => {
    await sql.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, params, created_at, updated_at)
       values ($1, 'dep1', $2, $1, 'ext-' || $1, 'sealed', '{}', '{}'::jsonb, $3, $3)`,
      [id, connector, now],
    );
    await sql.query(
      `insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, status, provider_id, next_attempt_at, updated_at)
       values ('psub_' || $1, 'dep1', $1, $2, '', $3::text[], $4, 'at-provider-' || $1, $5, $5)`,
      [id, connector, events, status, "2030-01-01T00:00:00.000Z"],
    );
  };
  await subscription("box1", "box", "ACTIVE", ["FILE.UPLOADED"]);
  await subscription("monday1", "monday", "FAILED", ["create_item"]);
  await subscription("jira1", "jira", "ACTIVE", ["jira:issue_created"]);
  await subscription("jira2", "jira", "ACTIVE", []);
  await subscription("gitlab1", "gitlab", "ACTIVE", ["push_events"]);

  await migrateThrough();
  const rows = await sql.query<{ id: string; status: string; provider_id: string; due: boolean }>(
    `select id, status::text as status, provider_id, next_attempt_at < '2030-01-01' as due from provider_subscription order by id`,
  );
  expect(rows).toEqual([
    { id: "psub_box1", status: "PENDING", provider_id: "at-provider-box1", due: true },
    { id: "psub_gitlab1", status: "ACTIVE", provider_id: "at-provider-gitlab1", due: false },
    { id: "psub_jira1", status: "PENDING", provider_id: "at-provider-jira1", due: true },
    { id: "psub_jira2", status: "ACTIVE", provider_id: "at-provider-jira2", due: false },
    { id: "psub_monday1", status: "PENDING", provider_id: "at-provider-monday1", due: true },
  ]);
});
