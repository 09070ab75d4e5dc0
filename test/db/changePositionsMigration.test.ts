/**
 * The migration that made change_position the one place a change reader's position is kept: what
 * an upgraded deployment had read up to — Gmail's historyId and Dropbox's cursor on the connection,
 * a declared poller's positions by trigger, a Graph delta link on its subscription — is where the
 * readers now look, so nothing is read twice or skipped; a reader that had no position has none.
 */
import { expect, test } from "vitest";
import { databaseBefore } from "../helpers/migrationStep.ts";

test("every stored position moves to change_position: the connection's under reader '', a subscription's under its id", async () => {
  const { sql, migrateThrough } = await databaseBefore("_change_positions");

  const now = new Date().toISOString();
  await sql.query(`insert into organization (id, name) values ('org1', 'Acme')`);
  await sql.query(`insert into deployment (id, organization_id, name) values ('dep1', 'org1', 'development')`);
  const connection = async (id: string, connector: string, cursor: string | null) => {
    await sql.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, params, cursor, created_at, updated_at)
       values ($1, 'dep1', $2, $1, 'ext-' || $1, 'sealed', '{}', '{}'::jsonb, $3, $4, $4)`,
      [id, connector, cursor, now],
    );
  };
  await connection("gmail1", "gmail", "9876543");
  await connection("dropbox1", "dropbox", "AAHdropbox-cursor");
  await connection("dropbox2", "dropbox", null);
  await connection("spotify1", "spotify", JSON.stringify({ track_played: "2026-01-01T00:00:00.000Z" }));
  await connection("outlook1", "microsoft", null);
  const subscription = async (id: string, resource: string, cursor: string | null) => {
    await sql.query(
      `insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, status, provider_id, cursor, updated_at)
       values ($1, 'dep1', 'outlook1', 'microsoft', $2, '{created}', 'ACTIVE', 'at-provider-' || $1, $3, $4)`,
      [id, resource, cursor, now],
    );
  };
  await subscription("psub_inbox", "me/mailFolders('Inbox')/messages", '{"deltaLink":"https://graph.microsoft.com/v1.0/delta?token=7"}');
  await subscription("psub_events", "me/events", null);

  await migrateThrough();
  const positions = await sql.query<{ connected_account_id: string; reader: string; cursor: string }>(
    `select connected_account_id, reader, cursor from change_position order by connected_account_id, reader`,
  );
  expect(positions).toEqual([
    { connected_account_id: "dropbox1", reader: "", cursor: "AAHdropbox-cursor" },
    { connected_account_id: "gmail1", reader: "", cursor: "9876543" },
    { connected_account_id: "outlook1", reader: "psub_inbox", cursor: '{"deltaLink":"https://graph.microsoft.com/v1.0/delta?token=7"}' },
    { connected_account_id: "spotify1", reader: "", cursor: JSON.stringify({ track_played: "2026-01-01T00:00:00.000Z" }) },
  ]);
  const leftBehind = await sql.query<{ table_name: string }>(
    `select table_name from information_schema.columns
     where table_schema = current_schema() and column_name = 'cursor' and table_name in ('connected_account', 'provider_subscription')`,
  );
  expect(leftBehind).toEqual([]);
  // A connection that goes takes its positions with it.
  await sql.query(`delete from connected_account where id = 'outlook1'`);
  expect(await sql.query(`select 1 from change_position where connected_account_id = 'outlook1'`)).toEqual([]);
});
