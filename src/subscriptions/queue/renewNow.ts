import type { Sql } from "../../db/sql.ts";

/**
 * renewNow: the provider asks for the subscription to be renewed now (Graph's
 * reauthorizationRequired) → the same status, due now, while the row still names that provider id.
 * A lease in force is left alone: its holder is already working the row.
 */
export async function renewNow(sql: Sql, id: string, providerId: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set next_attempt_at = $3::timestamp, updated_at = $3::timestamp
     where id = $1 and provider_id = $2 and status <> 'DELETED'
     returning id`,
    [id, providerId, now.toISOString()],
    "subscriptions_renew_now",
  );
  return rows.length > 0;
}
