import type { Sql } from "../../db/sql.ts";
import { type RawWork, type SubscriptionWork, toWork, WORK_COLUMNS } from "./row.ts";

/**
 * claimLive: every live row of one account, due or not, leased and marked
 * unwanted (events '{}'), for deleting them now. Waits for a row another statement holds (no SKIP):
 * a manager working one loses its lease, so its recording does nothing and it deletes what it made.
 */
export async function claimLive(sql: Sql, connectedAccountId: string, now: Date, leaseMs: number): Promise<SubscriptionWork[]> {
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const rows = await sql.query<RawWork>(
    `update provider_subscription s set lease_until = $3::timestamp, events = '{}', next_attempt_at = $2::timestamp, updated_at = $2::timestamp
     from connected_account a
     where s.connected_account_id = $1 and s.status <> 'DELETED' and a.id = s.connected_account_id
     returning ${WORK_COLUMNS}`,
    [connectedAccountId, now.toISOString(), leaseUntil.toISOString()],
  );
  return rows.map((row) => toWork(row, leaseUntil));
}
