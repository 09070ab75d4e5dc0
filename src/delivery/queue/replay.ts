import type { Sql } from "../../db/sql.ts";
import { dueNow, URL_IN_FORCE } from "./fragments.ts";
import { type DeliveryRow, RETURNING_ROW } from "./row.ts";

/**
 * replay: SUCCEEDED or FAILED → PENDING, due now (held while the deployment does not forward). The
 * event, its id (the `webhook-id`) and its body are unchanged, so a receiver that already has it can
 * deduplicate. The attempt count carries on. No row: the delivery is PENDING, CANCELLED or gone.
 */
export async function replay(sql: Sql, id: string, now: Date): Promise<DeliveryRow | undefined> {
  const rows = await sql.query<DeliveryRow>(
    `update delivery set status = 'PENDING', claim_count = 0, next_attempt_at = ${dueNow("$2")}, url = ${URL_IN_FORCE}, locked_until = null, completed_at = null, updated_at = $2::timestamp
     where id = $1 and status in ('SUCCEEDED', 'FAILED')
     ${RETURNING_ROW}`,
    [id, now.toISOString()],
  );
  return rows[0];
}
