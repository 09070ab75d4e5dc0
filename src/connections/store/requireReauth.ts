import type { Db } from "../../db/database.ts";

/**
 * requireReauth: ACTIVE → REAUTH_REQUIRED (the provider refused the grant, or a token lapsed with
 * nothing to renew it), the lock cleared. True only for the caller that moved the row: it alone
 * announces the lapse.
 */
export async function requireReauth(db: Db, id: string): Promise<boolean> {
  const { count } = await db.connectedAccount.updateMany({ where: { id, status: "ACTIVE" }, data: { status: "REAUTH_REQUIRED", refreshLockedUntil: null } });
  return count === 1;
}
