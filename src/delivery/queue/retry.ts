import type { Sql } from "../../db/sql.ts";
import { dueNow, URL_IN_FORCE } from "./fragments.ts";
import { type DeliveryRow, RETURNING_ROW } from "./row.ts";

/**
 * retry: PENDING or FAILED → PENDING, due now (held instead while the deployment does not forward).
 * PENDING: attempted now instead of at its scheduled time (its retry schedule carries on after).
 * FAILED: a new cycle of attempts starting now — the whole retry schedule again.
 * A PENDING delivery whose attempt is in flight keeps that attempt: it is the "now".
 * No row: the delivery is in another state (or gone).
 */
export async function retry(sql: Sql, id: string, now: Date): Promise<DeliveryRow | undefined> {
  const rows = await sql.query<DeliveryRow>(
    `update delivery set
       status = 'PENDING',
       cycle_start = case when status = 'FAILED' then attempts else cycle_start end,
       claim_count = 0,
       next_attempt_at = ${dueNow("$2")},
       url = ${URL_IN_FORCE},
       completed_at = null,
       updated_at = $2::timestamp
     where id = $1 and status in ('PENDING', 'FAILED')
     ${RETURNING_ROW}`,
    [id, now.toISOString()],
  );
  return rows[0];
}
