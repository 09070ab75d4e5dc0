import type { Db } from "../../db/database.ts";

/**
 * moveCursor: a code change reader's position (Gmail's historyId, Dropbox's cursor) moves, after the
 * events it read were stored. Status unchanged.
 */
export async function moveCursor(db: Db, id: string, cursor: string): Promise<void> {
  await db.connectedAccount.update({ where: { id }, data: { cursor } });
}
