import type { Sql } from "../../db/sql.ts";
import { dueNow, URL_IN_FORCE } from "./fragments.ts";

/**
 * retryFailed: every FAILED delivery of the deployment created at or after `since` → PENDING, a new
 * cycle of attempts due now. Returns how many. The (deployment_id, status, created_at) index bounds it.
 */
export async function retryFailed(sql: Sql, deploymentId: string, since: Date, now: Date): Promise<number> {
  const rows = await sql.query<{ count: string | number }>(
    `with retried as (
       update delivery set status = 'PENDING', cycle_start = attempts, claim_count = 0, next_attempt_at = ${dueNow("$3")}, url = ${URL_IN_FORCE}, completed_at = null, updated_at = $3::timestamp
       where deployment_id = $1 and created_at >= $2::timestamp and status = 'FAILED'
       returning 1
     )
     select count(*) as count from retried`,
    [deploymentId, since.toISOString(), now.toISOString()],
  );
  return Number(rows[0]?.count ?? 0);
}
