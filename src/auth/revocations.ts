/**
 * Early ends of access, announced in process right after their change commits: Sessions.revoke
 * (logOut, logOutEverywhere, changePassword), generateApiKey and removeMember. Running live
 * subscriptions on this instance listen (src/graphql/liveAccess.ts) and, when one concerns their
 * caller, check the caller again at once, so a revoked caller's stream ends within a database read.
 *
 * An announcement says whose access changed, not what is left of it: the listener asks the
 * session and API-key caches (dropped by the revocation) and the database. Instances sharing the
 * database do not hear it; their subscriptions re-check at most SUBSCRIPTION_ACCESS_RECHECK apart
 * (docs/security.md, "Live subscriptions").
 */
export type Revocation =
  /** Some (or all) of the user's sessions ended. */
  | { kind: "sessions"; userId: string }
  /** The deployment's API keys were replaced: revoked now, or expiring at the end of a grace period. */
  | { kind: "apiKeys"; deploymentId: string }
  /** The user is no longer a member of the organization. */
  | { kind: "membership"; userId: string; organizationId: string };

export interface Revocations {
  announce(revocation: Revocation): void;
  /** Calls `listener` for every announcement until the returned function is called. */
  watch(listener: (revocation: Revocation) => void): () => void;
  /**
   * How many revocations were announced so far: a subscription compares it with the count when its
   * caller was authenticated, to learn whether one came in while it was starting.
   */
  readonly announced: number;
}

/** One per app, built in src/app.ts: two apps in one process (tests) never hear each other. */
export function createRevocations(): Revocations {
  const listeners = new Set<(revocation: Revocation) => void>();
  let announced = 0;
  return {
    announce(revocation) {
      announced++;
      for (const listener of [...listeners]) listener(revocation);
    },
    watch(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    get announced() {
      return announced;
    },
  };
}
