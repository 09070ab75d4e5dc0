import type { Sql } from "../../db/sql.ts";
import { HELD, held } from "./held.ts";
import { renewAt } from "./policy.ts";
import type { SubscriptionWork } from "./row.ts";

/** recordRenewed: ACTIVE/FAILED (leased) → ACTIVE with the new expiry (or, found by a check, due at the next check). */
export async function recordRenewed(sql: Sql, work: SubscriptionWork, expiresAt: Date | null, now: Date, checkAt: Date | null = null): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set status = 'ACTIVE', expires_at = $3::timestamp, last_renewed_at = $4::timestamp, next_attempt_at = $5::timestamp,
       lease_until = null, last_error = null, failing_since = null, failures = 0, updated_at = $4::timestamp
     where ${HELD}
     returning id`,
    [...held(work), expiresAt?.toISOString() ?? null, now.toISOString(), (renewAt(now, expiresAt) ?? checkAt)?.toISOString() ?? null],
    "subscriptions_record_renewed",
  );
  return rows.length > 0;
}
