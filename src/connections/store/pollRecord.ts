import { CONNECTION_READER } from "../../changes/positions.ts";
import type { Sql } from "../../db/sql.ts";

/** How a poll went, for the connection's polling health: `error` null when it succeeded; null when it was no attempt (the provider pushes instead). */
export type PollAttempt = { at: Date; error: string | null } | null;

/**
 * pollRecord: in flight → scheduled again at `nextPollAt` (the poller's now + interval + jitter, or
 * sooner when nudged since `claimedAt`), the lease cleared, the connection's reader position
 * (change_position, ../../changes/positions.ts) moved when the poll read one (`cursor`; null keeps
 * the stored one) — under the same lease, and the attempt counted in the polling health: a
 * success ends a run of failures; a failure starts or extends one. Only the lease this instance
 * holds: a poll that outlived its lease (another instance has taken the row since) changes nothing.
 * A connection that stopped being ACTIVE meanwhile is unscheduled instead.
 *
 * `announce`: this failure is the first of its run whose run began at or before `failedBefore`
 * (POLLING_FAILED_AFTER ago) — switchyard.polling_failed is emitted once per run, by the caller that
 * moved poll_failure_announced.
 */
export async function pollRecord(
  sql: Sql,
  id: string,
  lease: { leaseUntil: Date; claimedAt: Date },
  nextPollAt: Date,
  cursor: string | null,
  attempt: PollAttempt,
  failedBefore: Date,
): Promise<{ recorded: boolean; announce: boolean }> {
  const rows = await sql.query<{ announce: boolean }>(
    `with old as (
       select id, poll_failure_announced, poll_failing_since, $6::boolean as attempted, $7::text as error,
         case when $7::text is null then null else coalesce(poll_failing_since, $8::timestamp) end as streak_since
       from connected_account
       where id = $1 and poll_lease_until = $2::timestamp
       for update
     ),
     moved as (
       insert into change_position (connected_account_id, reader, cursor)
       select old.id, $10::text, $4::text from old where $4::text is not null
       on conflict (connected_account_id, reader) do update set cursor = excluded.cursor
     )
     update connected_account a set
       -- A next_poll_at after the claim is a nudge that came during the read (pollNudge.ts): kept when sooner.
       next_poll_at = case when a.status = 'ACTIVE' then
         case when a.next_poll_at > $5::timestamp then least(a.next_poll_at, $3::timestamp) else $3::timestamp end
       end,
       poll_lease_until = null,
       last_polled_at = case when old.attempted then $8::timestamp else a.last_polled_at end,
       last_poll_succeeded_at = case when old.attempted and old.error is null then $8::timestamp else a.last_poll_succeeded_at end,
       last_poll_error = case when old.attempted then old.error else a.last_poll_error end,
       poll_failures = case when not old.attempted then a.poll_failures when old.error is null then 0 else a.poll_failures + 1 end,
       poll_failing_since = case when old.attempted then old.streak_since else a.poll_failing_since end,
       poll_failure_announced = case when not old.attempted then a.poll_failure_announced when old.error is null then false
                                     else a.poll_failure_announced or old.streak_since <= $9::timestamp end
     from old
     where a.id = old.id
     returning (old.attempted and old.error is not null and not old.poll_failure_announced and old.streak_since <= $9::timestamp) as announce`,
    [id, lease.leaseUntil.toISOString(), nextPollAt.toISOString(), cursor, lease.claimedAt.toISOString(), attempt !== null, attempt?.error ?? null, (attempt?.at ?? lease.claimedAt).toISOString(), failedBefore.toISOString(), CONNECTION_READER],
    "poll_record",
  );
  return { recorded: rows.length === 1, announce: rows[0]?.announce === true };
}
