import type { Sql } from "../../db/sql.ts";
import { type RawWork, type SubscriptionWork, toWork, WORK_COLUMNS } from "./row.ts";

/**
 * claim: due rows (next_attempt_at ≤ now, not DELETED, no lease in force) → leased until
 * now + leaseMs. `FOR UPDATE SKIP LOCKED`: instances share the work without waiting on each other
 * or taking the same row; a dead instance's lease runs out and the row is simply due again.
 */
export async function claim(sql: Sql, now: Date, leaseMs: number, limit: number): Promise<SubscriptionWork[]> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const rows = await sql.query<RawWork>(
    `update provider_subscription s set lease_until = $2::timestamp
     from (
       select p.id from provider_subscription p
       where p.next_attempt_at <= $1::timestamp and p.status <> 'DELETED' and (p.lease_until is null or p.lease_until < $1::timestamp)
       order by p.next_attempt_at
       limit $3
       for update skip locked
     ) due, connected_account a
     where s.id = due.id and a.id = s.connected_account_id
     returning ${WORK_COLUMNS}`,
    [now.toISOString(), leaseUntil.toISOString(), limit],
    "subscriptions_claim",
  );
  return rows.map((row) => toWork(row, leaseUntil));
}
