import type { Sql } from "../../db/sql.ts";

/** recordCursor: where change reading resumes (no state change; any holder may move it). */
export async function recordCursor(sql: Sql, id: string, cursor: string): Promise<void> {
  await sql.query(`update provider_subscription set cursor = $2 where id = $1`, [id, cursor], "subscriptions_record_cursor");
}
