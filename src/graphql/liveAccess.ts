import { GraphQLError } from "graphql";
import type { Principal } from "../auth/principal.ts";
import type { Revocation } from "../auth/revocations.ts";
import { findDeploymentWithRole } from "../deployments/findDeployment.ts";
import type { GraphQLContext } from "./context.ts";

/**
 * A live subscription is authorized when it starts, and stays authorized only while its caller
 * may still read the deployment: a logged-out session, a replaced API key or a removed member
 * must not go on receiving the deployment's events.
 *
 * - On this instance, revocations are announced (src/auth/revocations.ts) and a subscription whose
 *   caller one concerns checks the caller again at once; a message waits for that check.
 * - Revocations made on another instance are not heard: before sending a message, a subscription
 *   checks its caller again if its last check is older than SUBSCRIPTION_ACCESS_RECHECK (or the
 *   session or key has expired since). A check asks the session and API-key caches (≤ 2 s old)
 *   and, for a user, the one-statement membership query; a subscription makes at most one per
 *   bound, however many messages flow, and API-key subscribers share the key cache.
 *
 * A caller who lost access gets one last result, an UNAUTHENTICATED or FORBIDDEN error with
 * `extensions.accessEnded: true`, and the subscription completes. It is ended by ending this source
 * (a resolver's error alone would not end a graphql-js subscription), which also ends the bus
 * subscription under it at once.
 */

/** The last item of a subscription whose caller lost access: the error its last result carries. */
export class AccessEnded {
  constructor(readonly error: GraphQLError) {}
}

const ended = (code: string, message: string) => new AccessEnded(new GraphQLError(message, { extensions: { code, accessEnded: true } }));

const sessionEnded = () =>
  ended(
    "UNAUTHENTICATED",
    "Your session ended (you logged out, your password was changed, or it expired), so this subscription stopped. Log in again, then subscribe again.",
  );
const apiKeyEnded = () =>
  ended(
    "UNAUTHENTICATED",
    "This API key was revoked (the deployment has a new key) or has expired, so this subscription stopped. Subscribe again with the deployment's current API key.",
  );
const membershipEnded = () =>
  ended(
    "FORBIDDEN",
    "You are no longer a member of this deployment's organization, so this subscription stopped. Ask an owner or admin of the organization to add you again.",
  );
// Nothing is sent that could not be confirmed: the subscriber reconnects, and is checked anew.
const uncheckable = () =>
  ended("INTERNAL_SERVER_ERROR", "Access to this deployment could not be checked again, so this subscription stopped. Subscribe again in a moment.");

function concerns(principal: Principal, revocation: Revocation): boolean {
  if (principal.kind === "apiKey") return revocation.kind === "apiKeys" && revocation.deploymentId === principal.deploymentId;
  return revocation.kind !== "apiKeys" && revocation.userId === principal.userId;
}

/**
 * `source`, a deployment's live messages, for as long as the subscription's caller may read the
 * deployment; then one AccessEnded, and the end. Made once `source` is listening: announcements
 * made since the caller was authenticated (`ctx.revocationsSeen`) are caught up on by a check.
 */
export function whileAllowed<T>(ctx: GraphQLContext, deploymentId: string, source: AsyncIterator<T>): AsyncIterableIterator<T | AccessEnded> {
  const { sql, logger, live } = ctx;
  const principal = ctx.principal;
  if (!principal) throw new Error("unreachable: a subscription is authorized before it starts");
  const recheckMs = ctx.settings.subscriptionAccessRecheckMs;

  /** Whether the caller may still read the deployment; if so, until when that answer may be trusted. */
  const check = async (): Promise<AccessEnded | number> => {
    const started = Date.now();
    const now = await ctx.reauthenticate();
    if (principal.kind === "apiKey") {
      if (now?.principal.kind !== "apiKey" || now.principal.apiKeyId !== principal.apiKeyId || now.principal.deploymentId !== deploymentId) return apiKeyEnded();
    } else {
      if (now?.principal.kind !== "user" || now.principal.sessionId !== principal.sessionId) return sessionEnded();
      const found = await findDeploymentWithRole(sql, deploymentId, principal.userId);
      if (!found?.role) return membershipEnded();
    }
    return Math.min(started + recheckMs, now.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
  };

  let trustedUntil = Date.now() + recheckMs;
  let ending: AccessEnded | undefined;
  let finished = false;
  let pending: Promise<IteratorResult<T>> | undefined;
  let wake: (() => void) | undefined; // a next() waiting on the source, told that access ended
  let latest: Promise<void> | undefined; // the newest check: a message waits for it

  const end = (why: AccessEnded) => {
    if (ending || finished) return;
    ending = why;
    unwatch();
    // Nothing more is buffered for this caller; a next() waiting on the source returns at once.
    Promise.resolve(source.return?.()).catch(() => undefined);
    wake?.();
  };

  const recheck = (): Promise<void> => {
    const run: Promise<void> = check().then(
      (result) => {
        if (result instanceof AccessEnded) end(result);
        else if (run === latest) trustedUntil = result;
      },
      (error: unknown) => {
        logger.warn({ err: error }, "could not check a live subscriber's access again");
        end(uncheckable());
      },
    );
    latest = run;
    return run;
  };

  /** Waits for every check started so far, including any started while waiting. */
  const checksSettled = async () => {
    for (let current = latest; current; current = latest) {
      await current;
      if (current === latest) return;
    }
  };

  const unwatch = live.revocations.watch((revocation) => {
    if (concerns(principal, revocation)) void recheck();
  });
  if (ctx.revocationsSeen !== live.revocations.announced) void recheck();

  const finish = () => {
    finished = true;
    unwatch();
  };

  const iterator: AsyncIterableIterator<T | AccessEnded> = {
    [Symbol.asyncIterator]: () => iterator,
    async next() {
      for (;;) {
        if (finished) return { value: undefined, done: true };
        if (ending) {
          finish();
          return { value: ending, done: false };
        }
        pending ??= source.next();
        const woken = new Promise<undefined>((resolve) => (wake = () => resolve(undefined)));
        const step = await Promise.race([pending, woken]);
        wake = undefined;
        if (!step) {
          // Access ended, or the subscription was stopped, while waiting; the source was ended too.
          pending.catch(() => undefined);
          continue;
        }
        pending = undefined;
        if (step.done) {
          if (ending) continue; // ended by end(): the AccessEnded comes first
          finish();
          return step;
        }
        // A message: sent only once access is confirmed recently enough; dropped if it ended.
        await checksSettled();
        if (!ending && Date.now() >= trustedUntil) {
          void recheck();
          await checksSettled();
        }
        if (!ending) return step;
      }
    },
    async return() {
      finish();
      wake?.();
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      finish();
      wake?.();
      await source.return?.();
      throw error;
    },
  };
  return iterator;
}
