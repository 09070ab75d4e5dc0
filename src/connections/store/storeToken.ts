import type { Db } from "../../db/database.ts";

/** A renewed token, sealed: what a refresh or an installation token mint gives. */
export interface RenewedToken {
  accessTokenEncrypted: string;
  /** Absent: keep the stored one (providers that do not rotate, such as Google, send none). */
  refreshTokenEncrypted?: string;
  tokenExpiresAt: Date | null;
  /** Absent: keep the stored scopes (the answer named none). */
  scopes?: string[];
  lastRefreshedAt: Date;
}

/**
 * storeToken: refreshing → ACTIVE with the renewed token, the lock cleared. Only under the caller's
 * own lock and while still ACTIVE: a connection disconnected meanwhile keeps its forgotten tokens.
 */
export async function storeToken(db: Db, id: string, lockedUntil: Date, token: RenewedToken): Promise<void> {
  await db.connectedAccount.updateMany({
    where: { id, refreshLockedUntil: lockedUntil, status: "ACTIVE" },
    data: {
      accessTokenEncrypted: token.accessTokenEncrypted,
      ...(token.refreshTokenEncrypted ? { refreshTokenEncrypted: token.refreshTokenEncrypted } : {}),
      tokenExpiresAt: token.tokenExpiresAt,
      ...(token.scopes?.length ? { scopes: token.scopes } : {}),
      lastRefreshedAt: token.lastRefreshedAt,
      refreshLockedUntil: null,
    },
  });
}
