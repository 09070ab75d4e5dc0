import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { badInput } from "../errors.ts";

export const MAX_GRACE_PERIOD_SECONDS = 7 * 24 * 3600;
const KEY_SHAPE = /^sy_[a-z]+_[A-Za-z0-9_-]{32,}$/;
const PREFIX_LENGTH = 12; // "sy_live_" + 4 characters of the secret: enough to tell keys apart

/**
 * Issues a deployment's new key and retires the previous one: at once, or at the end of the grace
 * period so a running server can switch over without downtime (as Stripe's "roll key" does).
 * The plaintext is returned once and never stored.
 */
export async function generateApiKey(db: Db, deploymentId: string, deploymentName: string, gracePeriodSeconds: number) {
  if (!Number.isInteger(gracePeriodSeconds) || gracePeriodSeconds < 0 || gracePeriodSeconds > MAX_GRACE_PERIOD_SECONDS) {
    throw badInput(`gracePeriodSeconds must be between 0 and ${MAX_GRACE_PERIOD_SECONDS} (7 days)`, [
      { field: "gracePeriodSeconds", message: "must be between 0 and 604800" },
    ]);
  }
  const word = deploymentName === "production" ? "live" : "test";
  const apiKey = `sy_${word}_${randomToken(32)}`;
  const now = new Date();
  const key = await db.$transaction(async (tx) => {
    const active = { deploymentId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
    if (gracePeriodSeconds === 0) {
      await tx.apiKey.updateMany({ where: active, data: { revokedAt: now } });
    } else {
      const endOfGrace = new Date(now.getTime() + gracePeriodSeconds * 1000);
      // A key already on a shorter grace keeps its earlier end.
      await tx.apiKey.updateMany({ where: { ...active, OR: [{ expiresAt: null }, { expiresAt: { gt: endOfGrace } }] }, data: { expiresAt: endOfGrace } });
    }
    return tx.apiKey.create({ data: { deploymentId, prefix: apiKey.slice(0, PREFIX_LENGTH), hash: sha256Hex(apiKey) } });
  });
  return { apiKey, key };
}

/** The deployment's current key (the newest one still usable), for display. */
export function currentApiKey(db: Db, deploymentId: string) {
  const now = new Date();
  return db.apiKey.findFirst({
    where: { deploymentId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: { createdAt: "desc" },
  });
}

export type ApiKeyCheck = { ok: true; apiKeyId: string; deploymentId: string } | { ok: false };

// lastUsedAt is for humans ("used 3 minutes ago"): writing it once a minute per key keeps a busy key
// from turning every read into a write.
const LAST_USED_RESOLUTION_MS = 60_000;

export function createApiKeyVerifier(db: Db, onError: (error: unknown) => void) {
  const lastWritten = new Map<string, number>();
  return async function verifyApiKey(presented: string): Promise<ApiKeyCheck> {
    if (!KEY_SHAPE.test(presented)) return { ok: false };
    // Looking up by the hash is the constant-time part: the secret itself is never compared.
    const key = await db.apiKey.findUnique({
      where: { hash: sha256Hex(presented) },
      select: { id: true, deploymentId: true, revokedAt: true, expiresAt: true },
    });
    const now = Date.now();
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now)) return { ok: false };
    if ((lastWritten.get(key.id) ?? 0) + LAST_USED_RESOLUTION_MS <= now) {
      lastWritten.set(key.id, now);
      db.apiKey.update({ where: { id: key.id }, data: { lastUsedAt: new Date(now) } }).catch(onError);
    }
    return { ok: true, apiKeyId: key.id, deploymentId: key.deploymentId };
  };
}
