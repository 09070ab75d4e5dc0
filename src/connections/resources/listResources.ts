import type { Sql } from "../../db/sql.ts";

/** A watched_resource row. */
export interface ResourceRow {
  id: string;
  connectedAccountId: string;
  params: Record<string, string>;
  createdAt: Date;
}

export interface RawResource {
  id: string;
  connected_account_id: string;
  params: unknown;
  created_at: Date | string;
}

export const toResourceRow = (row: RawResource): ResourceRow => ({
  id: row.id,
  connectedAccountId: row.connected_account_id,
  params: row.params as Record<string, string>,
  createdAt: new Date(row.created_at),
});

/** The connections' resources, oldest first. */
export async function listResources(sql: Sql, connectedAccountIds: string[]): Promise<ResourceRow[]> {
  if (connectedAccountIds.length === 0) return [];
  const rows = await sql.query<RawResource>(
    `select id, connected_account_id, params, created_at at time zone 'UTC' as created_at from watched_resource
     where connected_account_id = any($1::text[]) order by created_at, id`,
    [connectedAccountIds],
    "resources_list",
  );
  return rows.map(toResourceRow);
}
