/**
 * The migration that brought watched resources: a GitLab connection made with `params[project_id]`
 * before it, holding a live project webhook, watches that project as its first resource afterwards,
 * and its webhook row is linked to the resource as it was (same row, same provider id) — so the
 * subscription manager has nothing to make again at GitLab. A connection of a connector without
 * resource parameters gets none.
 */
import { expect, test } from "vitest";
import { databaseBefore } from "../helpers/migrationStep.ts";

test("a connection made with params[project_id] before resources watches that project, its webhook linked and not made again", async () => {
  const { sql, migrateThrough } = await databaseBefore("_watched_resources");

  const now = new Date().toISOString();
  await sql.query(`insert into organization (id, name) values ('org1', 'Acme')`);
  await sql.query(`insert into deployment (id, organization_id, name) values ('dep1', 'org1', 'development')`);
  const account = (id: string, connector: string, params: object) =>
    sql.query(
      `insert into connected_account (id, deployment_id, connector, account, external_id, access_token_encrypted, scopes, params, created_at, updated_at)
       values ($1, 'dep1', $2, $1, 'ext-' || $1, 'sealed', '{}', $3::jsonb, $4, $4)`,
      [id, connector, JSON.stringify(params), now],
    );
  await account("alice", "gitlab", { project_id: "278964" });
  await account("bob", "gitlab", {});
  await account("carol", "github", {});
  await account("dave", "bitbucket", { workspace: "acme", repo_slug: "api" });
  await sql.query(
    `insert into provider_subscription (id, deployment_id, connected_account_id, connector, resource, events, status, provider_id, updated_at)
     values ('psub_alice', 'dep1', 'alice', 'gitlab', 'projects/278964', '{push_events}', 'ACTIVE', '1001', $1)`,
    [now],
  );

  await migrateThrough();

  const resources = await sql.query<{ id: string; connected_account_id: string; params: unknown }>(`select id, connected_account_id, params from watched_resource order by connected_account_id`);
  expect(resources.map((r) => [r.connected_account_id, r.params])).toEqual([
    ["alice", { project_id: "278964" }],
    ["dave", { repo_slug: "api", workspace: "acme" }],
  ]);
  expect(resources[0].id).toMatch(/^res_[0-9a-f]{24}$/);
  const subs = await sql.query<{ id: string; status: string; provider_id: string; watched_resource_id: string; resource_params: unknown }>(
    `select id, status::text as status, provider_id, watched_resource_id, resource_params from provider_subscription`,
  );
  expect(subs).toEqual([{ id: "psub_alice", status: "ACTIVE", provider_id: "1001", watched_resource_id: resources[0].id, resource_params: { project_id: "278964" } }]);
}, 120_000);
