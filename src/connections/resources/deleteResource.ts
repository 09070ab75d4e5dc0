import type { Sql } from "../../db/sql.ts";

/** delete: the connection's resource by id; false when it has none by that id (never, or already deleted). */
export async function deleteResource(sql: Sql, connectedAccountId: string, id: string): Promise<boolean> {
  const rows = await sql.query<{ id: string }>(`delete from watched_resource where id = $1 and connected_account_id = $2 returning id`, [id, connectedAccountId], "resources_delete");
  return rows.length > 0;
}
