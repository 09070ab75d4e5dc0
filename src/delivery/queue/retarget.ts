import type { Sql } from "../../db/sql.ts";

/**
 * retarget (a new forwarding URL): every PENDING delivery of the deployment goes to the URL in
 * force, due at once (held while forwarding is not ACTIVE). One whose attempt to the old URL is in
 * flight is re-targeted too: recording that attempt sees the URL changed and makes it due again.
 * Returns how many.
 */
export async function retarget(sql: Sql, deploymentId: string, now: Date): Promise<number> {
  const rows = await sql.query<{ count: string | number }>(
    `with retargeted as (
       update delivery set
         url = s.forwarding_url,
         next_attempt_at = case when s.status = 'ACTIVE' then $2::timestamp end,
         updated_at = $2::timestamp
       from forwarding_settings s
       where s.deployment_id = $1 and delivery.deployment_id = $1 and delivery.status = 'PENDING'
       returning 1
     )
     select count(*) as count from retargeted`,
    [deploymentId, now.toISOString()],
  );
  return Number(rows[0]?.count ?? 0);
}
