import type { Db } from "../../db/database.ts";

/** releaseRefresh: refreshing → ACTIVE, tokens unchanged (the refresh failed for a passing reason). Only the caller's own lock. */
export async function releaseRefresh(db: Db, id: string, lockedUntil: Date): Promise<void> {
  await db.connectedAccount.updateMany({ where: { id, refreshLockedUntil: lockedUntil }, data: { refreshLockedUntil: null } });
}
