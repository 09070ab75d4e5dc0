import type { Sql } from "../../db/sql.ts";

/**
 * recordRemoved: the provider says it removed the subscription (Graph's subscriptionRemoved) →
 * PENDING, its provider id forgotten, due now: the manager makes a new one and deletes nothing.
 * Only while the row still names that provider id. A lease in force is ended: whatever its holder
 * was doing concerned a subscription that no longer exists, and it records nothing after this.
 */
export async function recordRemoved(sql: Sql, id: string, providerId: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set status = 'PENDING', provider_id = null, provider_resource_id = null, expires_at = null,
       next_attempt_at = $3::timestamp, lease_until = null, updated_at = $3::timestamp
     where id = $1 and provider_id = $2 and status <> 'DELETED'
     returning id`,
    [id, providerId, now.toISOString()],
    "subscriptions_record_removed",
  );
  return rows.length > 0;
}
