import type { Sql } from "../../db/sql.ts";
import { HELD, held } from "./held.ts";
import type { SubscriptionWork } from "./row.ts";

/** recordDeleted: any live row (leased) → DELETED, nothing due; it stays as history. */
export async function recordDeleted(sql: Sql, work: SubscriptionWork, now: Date, error: string | null): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set status = 'DELETED', next_attempt_at = null, lease_until = null, last_error = $3, updated_at = $4::timestamp
     where ${HELD}
     returning id`,
    [...held(work), error, now.toISOString()],
    "subscriptions_record_deleted",
  );
  return rows.length > 0;
}
