import type { Sql } from "../../db/sql.ts";

/**
 * record: in flight → scheduled again at `nextPollAt` (the poller's now + interval + jitter, or
 * sooner when nudged since `claimedAt`), the
 * lease cleared, the position moved when the poll read one (`cursor`; null keeps the stored one).
 * Only the lease this instance holds: a poll that outlived its lease (another instance has taken the
 * row since) changes nothing. A connection that stopped being ACTIVE meanwhile is unscheduled instead.
 */
export async function record(sql: Sql, id: string, leaseUntil: Date, claimedAt: Date, nextPollAt: Date, cursor: string | null): Promise<boolean> {
  const rows = await sql.query<{ id: string }>(
    // A next_poll_at after the claim is a nudge that came during the read (nudge.ts): kept when sooner.
    `update connected_account set
       next_poll_at = case when status = 'ACTIVE' then
         case when next_poll_at > $5::timestamp then least(next_poll_at, $3::timestamp) else $3::timestamp end
       end,
       poll_lease_until = null,
       cursor = coalesce($4, cursor)
     where id = $1 and poll_lease_until = $2::timestamp
     returning id`,
    [id, leaseUntil.toISOString(), nextPollAt.toISOString(), cursor, claimedAt.toISOString()],
    "poll_record",
  );
  return rows.length === 1;
}
