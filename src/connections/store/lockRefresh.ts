import type { Db } from "../../db/database.ts";

/**
 * lockRefresh: ACTIVE → ACTIVE, refreshing (refresh_locked_until = `lockedUntil`). Taken only when no
 * live lock is held and nobody refreshed since the caller read `lastRefreshedAt`: otherwise the
 * refresh token it read has been spent already (Atlassian rotates it). True when this caller holds it.
 */
export async function lockRefresh(db: Db, id: string, lastRefreshedAt: Date | null, now: Date, lockedUntil: Date): Promise<boolean> {
  const { count } = await db.connectedAccount.updateMany({
    where: { id, status: "ACTIVE", lastRefreshedAt, OR: [{ refreshLockedUntil: null }, { refreshLockedUntil: { lt: now } }] },
    data: { refreshLockedUntil: lockedUntil },
  });
  return count === 1;
}
