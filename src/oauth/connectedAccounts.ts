import type { ExternalIdentity, NormalizedToken } from "../connectors/types.ts";
import type { Db } from "../db/database.ts";
import type { OAuthDeps } from "./deps.ts";

const expiry = (token: NormalizedToken, now: number) => (token.expiresIn ? new Date(now + token.expiresIn * 1000) : null);

/**
 * Stores the result of a completed flow and marks the session completed, in one transaction: the
 * ConnectedAccount is created, or — for the same (deployment, connector, account) — updated with the
 * new tokens and set ACTIVE again (this is how a REAUTH_REQUIRED or DISCONNECTED account reconnects).
 * Returns the account and whether it is new (else it was authorized again), or undefined when the
 * session was completed meanwhile (a concurrent callback): nothing stored.
 */
export async function saveConnection(
  deps: OAuthDeps,
  session: { id: string; deploymentId: string; connector: string; account: string; params?: Record<string, string> },
  token: NormalizedToken,
  identity: ExternalIdentity,
  requestedScopes: string[],
) {
  const now = Date.now();
  const tokens = {
    accessTokenEncrypted: deps.box.seal(token.accessToken),
    refreshTokenEncrypted: token.refreshToken ? deps.box.seal(token.refreshToken) : null,
    tokenExpiresAt: expiry(token, now),
    // Providers that do not echo the granted scopes granted what was asked (or refused outright).
    scopes: token.scopes.length ? token.scopes : requestedScopes,
    externalId: identity.externalId,
    // What the provider calls the account (the connector's identity.displayNamePath), refreshed on every authorization.
    displayName: identity.displayName ?? null,
    metadata: (identity.metadata ?? {}) as object,
    // The connection parameters its URLs were filled with (a reconnect may name another tenant).
    params: session.params ?? {},
    status: "ACTIVE" as const,
    refreshLockedUntil: null,
  };
  return deps.db.$transaction(async (tx) => {
    const { count } = await tx.connectSession.updateMany({
      where: { id: session.id, completedAt: null, cancelledAt: null },
      data: { completedAt: new Date(now), state: null, pkceVerifierEncrypted: null },
    });
    if (count !== 1) return undefined;
    const key = { deploymentId: session.deploymentId, connector: session.connector, account: session.account };
    const existing = await tx.connectedAccount.findUnique({ where: { deploymentId_connector_account: key }, select: { cursor: true } });
    const account = await tx.connectedAccount.upsert({
      where: { deploymentId_connector_account: key },
      create: { ...key, ...tokens, cursor: identity.cursor ?? null },
      // A polling position survives a reconnect; only an account that never had one takes the new one.
      update: { ...tokens, ...(existing?.cursor ? {} : { cursor: identity.cursor ?? null }) },
    });
    return { account, created: !existing };
  });
}
