import type { Sql } from "../../db/sql.ts";
import { notInFlight } from "./fragments.ts";

/**
 * resume: every queued (held or scheduled later) PENDING delivery of the deployment → due, with its
 * creation time as its due time, so the backlog goes out oldest first. Rows whose attempt is in
 * flight are skipped: recording it schedules them (the settings are ACTIVE by then).
 */
export async function resume(sql: Sql, deploymentId: string, now: Date): Promise<void> {
  await sql.query(
    `update delivery set next_attempt_at = created_at, updated_at = $2::timestamp
     where id in (
       select id from delivery
       where deployment_id = $1 and status = 'PENDING' and (next_attempt_at is null or next_attempt_at > $2::timestamp)
         and ${notInFlight("$2")}
       for update skip locked)`,
    [deploymentId, now.toISOString()],
  );
}
