import type { Sql } from "../../db/sql.ts";
import { HELD, held } from "./held.ts";
import { FAILED_AFTER_MS, retryDelayMs } from "./policy.ts";
import type { SubscriptionWork } from "./row.ts";

/**
 * recordFailed: a failed create/renew/delete → due again after the backoff, the error kept; FAILED
 * once the failures have lasted FAILED_AFTER_MS. `becameFailed` is true exactly once per run of failures.
 */
export async function recordFailed(sql: Sql, work: SubscriptionWork, error: string, now: Date): Promise<{ recorded: boolean; becameFailed: boolean }> {
  const rows = await sql.query<{ became_failed: boolean }>(
    `update provider_subscription s set failures = s.failures + 1, failing_since = coalesce(s.failing_since, $3::timestamp),
       next_attempt_at = $4::timestamp, lease_until = null, last_error = $5, updated_at = $3::timestamp,
       status = case when coalesce(s.failing_since, $3::timestamp) <= $3::timestamp - ($6::bigint * interval '1 millisecond') then 'FAILED'::"ProviderSubscriptionStatus" else s.status end
     from (select id, status as old_status from provider_subscription where ${HELD} for update) o
     where s.id = o.id
     returning s.status = 'FAILED' and o.old_status <> 'FAILED' as became_failed`,
    [...held(work), now.toISOString(), new Date(now.getTime() + retryDelayMs(work.failures)).toISOString(), error, FAILED_AFTER_MS],
    "subscriptions_record_failed",
  );
  return { recorded: rows.length > 0, becameFailed: rows[0]?.became_failed === true };
}
