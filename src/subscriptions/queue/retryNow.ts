import type { Sql } from "../../db/sql.ts";

/** retryNow: a live row becomes due now (an operator's Retry now); false when it is DELETED or gone. */
export async function retryNow(sql: Sql, id: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set next_attempt_at = $2::timestamp, updated_at = $2::timestamp where id = $1 and status <> 'DELETED' returning id`,
    [id, now.toISOString()],
  );
  return rows.length > 0;
}
