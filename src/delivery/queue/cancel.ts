import type { Sql } from "../../db/sql.ts";
import { type DeliveryRow, RETURNING_ROW } from "./row.ts";

/** cancel: PENDING → CANCELLED, never attempted again. An attempt already in flight is recorded, and that is all. */
export async function cancel(sql: Sql, id: string, now: Date): Promise<DeliveryRow | undefined> {
  const rows = await sql.query<DeliveryRow>(
    `update delivery set status = 'CANCELLED', next_attempt_at = null, completed_at = $2::timestamp, updated_at = $2::timestamp
     where id = $1 and status = 'PENDING'
     ${RETURNING_ROW}`,
    [id, now.toISOString()],
  );
  return rows[0];
}
