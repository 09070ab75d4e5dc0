/**
 * The provider subscription queue: every statement that moves a `provider_subscription` row lives
 * in this folder, and nothing outside it writes the table.
 *
 * States (`status`; `events` '{}' marks a row no listed trigger needs any more):
 *
 *   PENDING   the provider's subscription does not exist yet, or no longer matches the row's events
 *             (a provider_id, if any, is the old one: deleted once the new one exists)
 *   ACTIVE    live at the provider; next_attempt_at = when a quarter of its lifetime is left (renew),
 *             or, where it never expires, when it is next looked up (the declared check)
 *   FAILED    create/renew failed for 24 h; `switchyard.subscription_failed` was emitted; still retried hourly
 *   DELETED   deleted at the provider (or its account's token is gone): history only, never due
 *
 * Statement        from                         to
 *   plan           —                            PENDING, due now (wanted: ACTIVE connection × watched resource × listed trigger)
 *                  PENDING/ACTIVE/FAILED        PENDING, due now (other events wanted)
 *                  PENDING/ACTIVE/FAILED        events '{}', due now (no longer wanted)
 *   claim          due, no lease in force       leased (lease_until); an expired lease is due again by itself
 *   claimLive      any live row of an account   leased, events '{}', due now (deleted right away: a disconnect)
 *   recordCreated  leased                       ACTIVE, due at renewal (PENDING, due now, if a plan changed its events meanwhile)
 *   recordRenewed  leased                       ACTIVE, due at renewal (or the next check: found by a check)
 *   recordFailed   leased                       same status, due after 1 min doubling to 1 h; FAILED after 24 h of failures
 *   recordDeleted  leased                       DELETED
 *   retryNow       PENDING/ACTIVE/FAILED        due now (an operator's Retry now)
 *   renewNow       PENDING/ACTIVE/FAILED        due now, while it names the provider id (the provider asks for a renewal: Graph's reauthorizationRequired)
 *   recordRemoved  PENDING/ACTIVE/FAILED        PENDING, provider id forgotten, lease ended, due now (the provider removed it: Graph's subscriptionRemoved)
 *   awaitHandshake leased                       the same, secret cleared: a create whose provider hands the secret over (Asana) is about to be sent
 *   recordHandshakeSecret  leased, no secret    the same, with the secret the provider's handshake carried (once per create)
 *
 * When a row is due again is policy.ts (renewal at a quarter of the lifetime left; 1 min doubling to
 * 1 h; FAILED after 24 h). Every record* statement is guarded by the claim's lease (held.ts: `lease_until` as claimed): an instance
 * whose lease ran out and was taken over records nothing, so renewals are never doubled.
 * Times are the injected clock's, passed as parameters. Where a subscription's change reader resumes is
 * not on the row: ../../changes/positions.ts keeps every reader's position.
 */
import type { Clock } from "../../clock.ts";
import type { Sql } from "../../db/sql.ts";
import { claim } from "./claim.ts";
import { claimLive } from "./claimLive.ts";
import { plan, type ResourceParams, type WantedEvent } from "./plan.ts";
import { accountsAfter, accountsChanged, forgetChanges, forgetChangesUpTo, lastChange, pendingChanges, type PlanChange } from "./changes.ts";
import { type Created, recordCreated } from "./recordCreated.ts";
import { awaitHandshake, recordHandshakeSecret } from "./recordHandshakeSecret.ts";
import { recordDeleted } from "./recordDeleted.ts";
import { recordFailed } from "./recordFailed.ts";
import { recordRemoved } from "./recordRemoved.ts";
import { recordRenewed } from "./recordRenewed.ts";
import { renewNow } from "./renewNow.ts";
import { retryNow } from "./retryNow.ts";
import type { SubscriptionWork } from "./row.ts";

export type { SubscriptionWork } from "./row.ts";
export type { ResourceParams, WantedEvent } from "./plan.ts";
export type { Created } from "./recordCreated.ts";
export { FAILED_AFTER_MS, renewAt, retryDelayMs } from "./policy.ts";

export function createSubscriptionQueue({ sql, clock }: { sql: Sql; clock: Clock }) {
  return {
    plan: (wanted: WantedEvent[], resourceParams: ResourceParams, accountIds: string[]) => plan(sql, wanted, resourceParams, accountIds, clock.now()),
    pendingChanges: (limit: number) => pendingChanges(sql, limit),
    accountsChanged: (changes: PlanChange[]) => accountsChanged(sql, changes),
    forgetChanges: (ids: string[]) => forgetChanges(sql, ids),
    forgetChangesUpTo: (upToId: string) => forgetChangesUpTo(sql, upToId),
    lastChange: () => lastChange(sql),
    accountsAfter: (afterId: string, limit: number) => accountsAfter(sql, afterId, limit),
    claim: (leaseMs: number, limit: number) => claim(sql, clock.now(), leaseMs, limit),
    claimForAccount: (connectedAccountId: string, leaseMs: number) => claimLive(sql, connectedAccountId, clock.now(), leaseMs),
    recordCreated: (work: SubscriptionWork, created: Created) => recordCreated(sql, work, created, clock.now()),
    recordRenewed: (work: SubscriptionWork, expiresAt: Date | null, checkAt: Date | null = null) => recordRenewed(sql, work, expiresAt, clock.now(), checkAt),
    recordFailed: (work: SubscriptionWork, error: string) => recordFailed(sql, work, error, clock.now()),
    recordDeleted: (work: SubscriptionWork, error: string | null = null) => recordDeleted(sql, work, clock.now(), error),
    awaitHandshake: (work: SubscriptionWork) => awaitHandshake(sql, work, clock.now()),
    recordHandshakeSecret: (id: string, deploymentId: string, connector: string, secretSealed: string) => recordHandshakeSecret(sql, id, deploymentId, connector, secretSealed, clock.now()),
    retryNow: (id: string) => retryNow(sql, id, clock.now()),
    renewNow: (id: string, providerId: string) => renewNow(sql, id, providerId, clock.now()),
    recordRemoved: (id: string, providerId: string) => recordRemoved(sql, id, providerId, clock.now()),
  };
}

export type SubscriptionQueue = ReturnType<typeof createSubscriptionQueue>;
