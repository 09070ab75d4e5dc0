import type { Sql } from "../../db/sql.ts";
import type { SubscriptionWork } from "./row.ts";

/** Every recording statement holds the claim's lease: a row taken over by another instance (or deleted meanwhile) is not touched. */
const HELD = `id = $1 and lease_until = $2::timestamp and status <> 'DELETED'`;
const held = (work: SubscriptionWork) => [work.id, work.leaseUntil.toISOString()];

/** When to look again: once a quarter of the lifetime the provider answered is left; never when it does not expire. */
export function renewAt(now: Date, expiresAt: Date | null): Date | null {
  if (!expiresAt) return null;
  return new Date(now.getTime() + Math.max(0, (expiresAt.getTime() - now.getTime()) * 0.75));
}

export interface Created {
  providerId: string;
  providerResourceId: string | null;
  secretSealed: string | null;
  expiresAt: Date | null;
}

/** recordCreated: PENDING/ACTIVE/FAILED (leased) → ACTIVE with the provider's new subscription; false when the lease was lost (the caller deletes what it made). */
export async function recordCreated(sql: Sql, work: SubscriptionWork, created: Created, now: Date): Promise<boolean> {
  const rows = await sql.query(
    // Events changed by a plan meanwhile: recorded, but PENDING and due now, so it is re-created for them.
    `update provider_subscription set provider_id = $3, provider_resource_id = $4, secret_encrypted = $5,
       status = case when events = $9::text[] then 'ACTIVE'::"ProviderSubscriptionStatus" else 'PENDING'::"ProviderSubscriptionStatus" end,
       next_attempt_at = case when events = $9::text[] then $8::timestamp else $7::timestamp end,
       expires_at = $6::timestamp, last_renewed_at = $7::timestamp, lease_until = null,
       last_error = null, failing_since = null, failures = 0, updated_at = $7::timestamp
     where ${HELD}
     returning id`,
    [...held(work), created.providerId, created.providerResourceId, created.secretSealed, created.expiresAt?.toISOString() ?? null, now.toISOString(), renewAt(now, created.expiresAt)?.toISOString() ?? null, work.events],
    "subscriptions_record_created",
  );
  return rows.length > 0;
}

/** recordRenewed: ACTIVE/FAILED (leased) → ACTIVE with the new expiry. */
export async function recordRenewed(sql: Sql, work: SubscriptionWork, expiresAt: Date | null, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set status = 'ACTIVE', expires_at = $3::timestamp, last_renewed_at = $4::timestamp, next_attempt_at = $5::timestamp,
       lease_until = null, last_error = null, failing_since = null, failures = 0, updated_at = $4::timestamp
     where ${HELD}
     returning id`,
    [...held(work), expiresAt?.toISOString() ?? null, now.toISOString(), renewAt(now, expiresAt)?.toISOString() ?? null],
    "subscriptions_record_renewed",
  );
  return rows.length > 0;
}

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

/** Failing for this long turns a subscription FAILED (it is still retried, hourly). */
export const FAILED_AFTER_MS = 24 * 60 * 60_000;
/** The retry policy: 1 min doubling to 1 h, counted from the failures so far. */
export const retryDelayMs = (failuresBefore: number) => Math.min(60_000 * 2 ** Math.min(failuresBefore, 16), 60 * 60_000);

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

/** recordCursor: where change reading resumes (no state change; any holder may move it). */
export async function recordCursor(sql: Sql, id: string, cursor: string): Promise<void> {
  await sql.query(`update provider_subscription set cursor = $2 where id = $1`, [id, cursor], "subscriptions_record_cursor");
}

/** retryNow: a live row becomes due now (an operator's Retry now); false when it is DELETED or gone. */
export async function retryNow(sql: Sql, id: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set next_attempt_at = $2::timestamp, updated_at = $2::timestamp where id = $1 and status <> 'DELETED' returning id`,
    [id, now.toISOString()],
  );
  return rows.length > 0;
}
