import { CONNECTION_READER } from "../../changes/positions.ts";
import type { ExternalIdentity, NormalizedToken } from "../../connectors/types.ts";
import type { SecretBox } from "../../crypto/secrets.ts";
import type { Db } from "../../db/database.ts";

/** The connect session a completed flow came from, and what it was for. */
export interface CompletedSession {
  id: string;
  deploymentId: string;
  connector: string;
  account: string;
  /** The connection parameters its URLs were filled with (a reconnect may name another tenant). */
  params?: Record<string, string>;
}

/**
 * save: — → ACTIVE (a new connection), or any state → ACTIVE for the same (deployment, connector,
 * account): new tokens, identity and params, the refresh lock cleared. The connect session is marked
 * completed in the same transaction, so a second callback of one session stores nothing (undefined).
 * The change reader's position (change_position) survives a reconnect; only an account that never had one takes the new one.
 */
export async function save(
  db: Db,
  box: SecretBox,
  now: Date,
  session: CompletedSession,
  token: NormalizedToken,
  identity: ExternalIdentity,
  requestedScopes: string[],
) {
  const tokens = {
    accessTokenEncrypted: box.seal(token.accessToken),
    refreshTokenEncrypted: token.refreshToken ? box.seal(token.refreshToken) : null,
    tokenExpiresAt: token.expiresIn ? new Date(now.getTime() + token.expiresIn * 1000) : null,
    // Providers that do not echo the granted scopes granted what was asked (or refused outright).
    scopes: token.scopes.length ? token.scopes : requestedScopes,
    externalId: identity.externalId,
    // What the provider calls the account (the connector's identity.displayNamePath), refreshed on every authorization.
    displayName: identity.displayName ?? null,
    metadata: (identity.metadata ?? {}) as object,
    params: session.params ?? {},
    status: "ACTIVE" as const,
    refreshLockedUntil: null,
  };
  return db.$transaction(async (tx) => {
    const { count } = await tx.connectSession.updateMany({
      where: { id: session.id, completedAt: null, cancelledAt: null },
      data: { completedAt: now, state: null, pkceVerifierEncrypted: null },
    });
    if (count !== 1) return undefined;
    const key = { deploymentId: session.deploymentId, connector: session.connector, account: session.account };
    const existing = await tx.connectedAccount.findUnique({ where: { deploymentId_connector_account: key }, select: { id: true } });
    const account = await tx.connectedAccount.upsert({
      where: { deploymentId_connector_account: key },
      create: { ...key, ...tokens },
      update: tokens,
    });
    // The change reader's first position (changes.start); one held from before a reconnection is kept, so nothing is skipped.
    if (identity.cursor) {
      await tx.changePosition.createMany({ data: [{ connectedAccountId: account.id, reader: CONNECTION_READER, cursor: identity.cursor }], skipDuplicates: true });
    }
    return { account, created: !existing };
  });
}
