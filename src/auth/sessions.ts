import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";

/** Console sessions: a random bearer token handed out once; only its sha256 is stored. */
export async function createSession(db: Db, userId: string, ttlHours: number) {
  const token = `sy_session_${randomToken(32)}`;
  const expiresAt = new Date(Date.now() + ttlHours * 3_600_000);
  await db.session.create({ data: { tokenHash: sha256Hex(token), userId, expiresAt } });
  return { token, expiresAt };
}

export async function findSession(db: Db, token: string) {
  const session = await db.session.findUnique({ where: { tokenHash: sha256Hex(token) } });
  if (!session || session.expiresAt <= new Date()) return undefined;
  return session;
}

export async function deleteSession(db: Db, sessionId: string) {
  await db.session.deleteMany({ where: { id: sessionId } });
}
