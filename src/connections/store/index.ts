/**
 * The connected account's store: every statement that writes a `connected_account` row lives in this
 * folder, one file per statement (as the delivery queue, ../../delivery/queue/), and nothing outside
 * it writes the table — a test (test/connections/storeOwnsConnectedAccounts.test.ts) fails on any
 * `update connected_account`, `insert into connected_account` or Prisma `connectedAccount.update…`
 * elsewhere. Reads are anyone's. The poller keeps its schedule on the row and calls the poll
 * statements below (poll*.ts) rather than writing it itself (docs/decisions.md says why).
 *
 * States (`status`, with `refresh_locked_until` telling ACTIVE's two apart):
 *
 *   ACTIVE           tokens usable (or renewable by their owner without the user)
 *     refreshing     refresh_locked_until in the future: one worker is renewing the token
 *   REAUTH_REQUIRED  the provider refused the grant (or a token lapsed with nothing to renew it):
 *                    a person must authorize again; nothing polls or refreshes it
 *   DISCONNECTED     deleted by the operator (or the provider said the grant is gone): tokens
 *                    forgotten, final until the same account connects again
 *
 * Statement       from                              to                          moved by
 *   save          — / any                           ACTIVE                      the connect flow (rest/connect/)
 *   lockRefresh   ACTIVE                            refreshing                  ../accessTokens.ts
 *   storeToken    refreshing (own lock)             ACTIVE, a renewed token     ../accessTokens.ts
 *   releaseRefresh refreshing (own lock)            ACTIVE, tokens unchanged    ../accessTokens.ts
 *   requireReauth ACTIVE (refreshing included)      REAUTH_REQUIRED             ../accessTokens.ts
 *   disconnect    ACTIVE, REAUTH_REQUIRED           DISCONNECTED                ../connections.ts
 *
 * The poll schedule rides on the row (`next_poll_at`, `poll_lease_until`, with `status` and the
 * Forwarding Trigger List), moved only by the poller (../../polling/poller.ts) through these:
 *
 *   unscheduled  next_poll_at null: not polled (no polled trigger listed, not ACTIVE), or not yet seen
 *   scheduled    next_poll_at set, no live lease: read once next_poll_at ≤ now (then "due")
 *   in flight    poll_lease_until in the future: one instance is reading it now
 *
 *   pollSchedule unscheduled (ACTIVE, listed)  scheduled, at a random point within one interval
 *   pollClaim    due                           in flight; unscheduled when no longer polled
 *                                              (REAUTH_REQUIRED, DISCONNECTED, trigger unlisted)
 *   pollRecord   in flight (own lease)         scheduled at now + interval + jitter, position and
 *                                              polling health stored; unscheduled when no longer ACTIVE
 *   pollNudge    any (ACTIVE)                  due now: a notification named the account (Dropbox)
 *
 * Polling health rides on pollRecord (last_polled_at, last_poll_succeeded_at, last_poll_error,
 * poll_failures, and the run of failures — poll_failing_since, poll_failure_announced — that
 * switchyard.polling_failed reports once when it has lasted POLLING_FAILED_AFTER). `pollDue` reads
 * the gauge; the shared conditions (LISTED, POLLED) are in pollFragments.ts.
 *
 * An expired refresh lock is ACTIVE again by itself, as an expired poll lease is due again: a
 * crashed worker's claim needs no statement.
 * Times are the caller's clock, passed in. Each state change is announced by the caller that moved
 * the row (the statement says whether it did) as a lifecycle event (../lifecycle.ts).
 */
import type { ExternalIdentity, NormalizedToken } from "../../connectors/types.ts";
import type { SecretBox } from "../../crypto/secrets.ts";
import type { Db } from "../../db/database.ts";
import type { Sql } from "../../db/sql.ts";
import { disconnect } from "./disconnect.ts";
import { lockRefresh } from "./lockRefresh.ts";
import { releaseRefresh } from "./releaseRefresh.ts";
import { requireReauth } from "./requireReauth.ts";
import { type CompletedSession, save } from "./save.ts";
import { type RenewedToken, storeToken } from "./storeToken.ts";
import { pollClaim } from "./pollClaim.ts";
import { pollDue } from "./pollDue.ts";
import type { PolledPairs } from "./pollFragments.ts";
import { pollNudge } from "./pollNudge.ts";
import { type PollAttempt, pollRecord } from "./pollRecord.ts";
import { pollSchedule } from "./pollSchedule.ts";

export type { CompletedSession } from "./save.ts";
export type { ForgottenTokens } from "./disconnect.ts";
export type { RenewedToken } from "./storeToken.ts";
export type { ClaimedConnection } from "./pollClaim.ts";
export type { PolledPairs } from "./pollFragments.ts";
export type { PollAttempt } from "./pollRecord.ts";
export { LISTED } from "./pollFragments.ts";

export interface ConnectionStoreDeps {
  db: Db;
  sql: Sql;
  box: SecretBox;
}

/** The statements bound to one database (and the box that seals what `save` stores). */
export function createConnectionStore({ db, sql, box }: ConnectionStoreDeps) {
  return {
    save: (now: Date, session: CompletedSession, token: NormalizedToken, identity: ExternalIdentity, requestedScopes: string[]) =>
      save(db, box, now, session, token, identity, requestedScopes),
    lockRefresh: (id: string, lastRefreshedAt: Date | null, now: Date, lockedUntil: Date) => lockRefresh(db, id, lastRefreshedAt, now, lockedUntil),
    storeToken: (id: string, lockedUntil: Date, token: RenewedToken) => storeToken(db, id, lockedUntil, token),
    releaseRefresh: (id: string, lockedUntil: Date) => releaseRefresh(db, id, lockedUntil),
    requireReauth: (id: string) => requireReauth(db, id),
    disconnect: (id: string, now: Date) => disconnect(sql, id, now),
  };
}

export type ConnectionStore = ReturnType<typeof createConnectionStore>;

/**
 * The poll schedule's statements, bound to one pool (the poller's) and the polled pairs of the
 * catalog (asked for on first use: they read the whole catalog, which start-up does not load);
 * times are the poller's clock, passed in.
 */
export function createPollSchedule({ sql, pairs }: { sql: Sql; pairs: () => PolledPairs }) {
  return {
    schedule: (now: Date) => pollSchedule(sql, pairs(), now),
    claim: (now: Date, leaseMs: number, limit: number) => pollClaim(sql, pairs(), now, leaseMs, limit),
    record: (id: string, lease: { leaseUntil: Date; claimedAt: Date }, nextPollAt: Date, cursor: string | null, attempt: PollAttempt, failedBefore: Date) =>
      pollRecord(sql, id, lease, nextPollAt, cursor, attempt, failedBefore),
    nudge: (deploymentId: string, connector: string, externalIds: string[], now: Date) => pollNudge(sql, deploymentId, connector, externalIds, now),
    countDue: (now: Date) => pollDue(sql, now),
  };
}

export type PollSchedule = ReturnType<typeof createPollSchedule>;
