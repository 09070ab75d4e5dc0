import { resourceKey } from "../../connectors/params.ts";
import { randomId } from "../../crypto/secrets.ts";
import type { Sql } from "../../db/sql.ts";
import { type RawResource, type ResourceRow, toResourceRow } from "./listResources.ts";

/**
 * insert: a resource for the connection, or the one it already has with these params
 * (`created: false`). Past `max` resources nothing is inserted (`limited`). The same params twice at
 * once insert one row (the unique key), the second answering the first's.
 */
export async function insertResource(
  sql: Sql,
  connectedAccountId: string,
  params: Record<string, string>,
  now: Date,
  max: number,
): Promise<{ resource: ResourceRow; created: boolean } | { limited: true }> {
  const key = resourceKey(params);
  const id = randomId("res");
  const rows = await sql.query<RawResource & { created: boolean }>(
    `with existing as (select * from watched_resource where connected_account_id = $2 and params_key = $4),
     inserted as (
       insert into watched_resource (id, connected_account_id, params, params_key, created_at)
       select $1, $2, $3::jsonb, $4, $5::timestamp
       where not exists (select 1 from existing)
         and (select count(*) from watched_resource where connected_account_id = $2) < $6
       on conflict (connected_account_id, params_key) do nothing
       returning *
     )
     select id, connected_account_id, params, created_at at time zone 'UTC' as created_at, true as created from inserted
     union all
     select id, connected_account_id, params, created_at at time zone 'UTC' as created_at, false as created from existing`,
    [id, connectedAccountId, JSON.stringify(params), key, now.toISOString(), max],
    "resources_insert",
  );
  const row = rows[0];
  if (row) return { resource: toResourceRow(row), created: row.created };
  // A concurrent insert of the same params won the conflict: it is the existing one.
  const again = await sql.query<RawResource>(
    `select id, connected_account_id, params, created_at at time zone 'UTC' as created_at from watched_resource where connected_account_id = $1 and params_key = $2`,
    [connectedAccountId, key],
  );
  return again[0] ? { resource: toResourceRow(again[0]), created: false } : { limited: true };
}
