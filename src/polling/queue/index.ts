/**
 * The poll schedule: every statement that moves a connection's `next_poll_at` / `poll_lease_until`
 * lives in this folder, one file per statement (as the delivery queue, ../../delivery/queue/).
 *
 * States of a connected_account row (the two columns, with `status` and the Forwarding Trigger List):
 *
 *   unscheduled  next_poll_at null: not polled (no polled trigger listed, not ACTIVE), or not yet seen
 *   scheduled    next_poll_at set, no live lease: read once next_poll_at ≤ now (then "due")
 *   in flight    poll_lease_until in the future: one instance is reading it now
 *
 * Statement   from                          to
 *   schedule  unscheduled (ACTIVE, listed)  scheduled, at a random point within one interval
 *   claim     due                           in flight; unscheduled when no longer polled
 *                                           (REAUTH_REQUIRED, DISCONNECTED, trigger unlisted)
 *   record    in flight (own lease)         scheduled at now + interval + jitter, position stored;
 *                                           unscheduled when no longer ACTIVE
 *   nudge     any (ACTIVE)                  due now: a notification named the account (Dropbox)
 *
 * An expired lease is due again by itself: a crashed instance's claim needs no statement. Times
 * come from the poller's clock as parameters, never the database's now(). `countDue` (due.ts)
 * reads the gauge. The shared conditions (LISTED, POLLED) are in fragments.ts.
 */
import type { Clock } from "../../clock.ts";
import type { Sql } from "../../db/sql.ts";
import type { PolledPairs } from "../targets.ts";
import { claim } from "./claim.ts";
import { countDue } from "./due.ts";
import { record } from "./record.ts";
import { schedule } from "./schedule.ts";

export type { ClaimedConnection } from "./claim.ts";
export { nudge } from "./nudge.ts";

export interface PollQueueDeps {
  sql: Sql;
  clock: Clock;
  pairs: PolledPairs;
}

/** The schedule's operations, bound to one pool, clock and catalog. */
export function createPollQueue({ sql, clock, pairs }: PollQueueDeps) {
  return {
    schedule: () => schedule(sql, pairs, clock.now()),
    claim: (leaseMs: number, limit: number) => claim(sql, pairs, clock.now(), leaseMs, limit),
    record: (id: string, leaseUntil: Date, claimedAt: Date, nextPollAt: Date, cursor: string | null) => record(sql, id, leaseUntil, claimedAt, nextPollAt, cursor),
    countDue: () => countDue(sql, clock.now()),
  };
}

export type PollQueue = ReturnType<typeof createPollQueue>;
