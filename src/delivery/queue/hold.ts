import type { Sql } from "../../db/sql.ts";
import { HOLD } from "./fragments.ts";

/**
 * hold (pause, disable): the deployment's due PENDING deliveries → held (HELD), while its forwarding
 * is not ACTIVE. Only keeps them out of every claim's index scan: the claim re-checks the settings'
 * status anyway. Rows locked by another statement are skipped (their recording holds them).
 */
export async function hold(sql: Sql, deploymentId: string, now: Date): Promise<void> {
  await sql.query(
    `update delivery set next_attempt_at = ${HOLD}, updated_at = $2::timestamp
     where id in (
       select id from delivery
       where deployment_id = $1 and status = 'PENDING' and next_attempt_at is not null
       for update skip locked)
     and exists (select 1 from forwarding_settings s where s.deployment_id = $1 and s.status <> 'ACTIVE')`,
    [deploymentId, now.toISOString()],
  );
}
