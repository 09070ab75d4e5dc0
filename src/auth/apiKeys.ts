import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { badInput } from "../errors.ts";
import { revocationsOf } from "./revocations.ts";

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
  // The previous key must stop working now on this instance, not when its cache entry runs out,
  // and the subscriptions it is running here must hear of it (./revocations.ts).
  verifiedKeysOf(db).forgetDeployment(deploymentId);
  revocationsOf(db).announce({ kind: "apiKeys", deploymentId });
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

/** `expiresAt`: when a key on its grace period stops working (null: until it is replaced). */
export type ApiKeyCheck = { ok: true; apiKeyId: string; deploymentId: string; expiresAt: Date | null } | { ok: false };

/** The stored hash of a presented key; undefined when it cannot be a key at all (no lookup needed). */
export function apiKeyHash(presented: string): string | undefined {
  return KEY_SHAPE.test(presented) ? sha256Hex(presented) : undefined;
}

/**
 * The SQL condition for "the key `alias` is usable now", the same rule as verifyApiKey's, for
 * queries that fold the key check into the work they do (the /api/data page: one round trip).
 * Timestamps are UTC `timestamp without time zone`, hence `now() at time zone 'utc'`.
 */
export const usableApiKeySql = (alias: string) =>
  `${alias}.revoked_at is null and (${alias}.expires_at is null or ${alias}.expires_at > (now() at time zone 'utc'))`;

// lastUsedAt is for humans ("used 3 minutes ago"): writing it once a minute per key keeps a busy key
// from turning every read into a write.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * How long this instance trusts a key it verified without asking the database again (GraphQL asks
 * on every request; see docs/benchmarks.md). generateApiKey on this instance drops its deployment's
 * entries at once; an instance sharing the database may accept a key revoked elsewhere for at most
 * this long. An entry never outlives the key's own expiresAt. GET /api/data does not use it: it
 * checks the key inside its page query.
 */
export const VERIFIED_KEY_TTL_MS = 2_000;
const MAX_VERIFIED_KEYS = 10_000;

interface VerifiedKey {
  apiKeyId: string;
  deploymentId: string;
  expiresAt: Date | null;
  until: number;
}

function createVerifiedKeyCache() {
  const entries = new Map<string, VerifiedKey>(); // by the key's hash
  // Bumped by every invalidation: a lookup that read the database before a revocation committed
  // must not put its (now stale) answer back afterwards.
  let epoch = 0;
  return {
    get epoch() {
      return epoch;
    },
    get(hash: string, now: number): VerifiedKey | undefined {
      const entry = entries.get(hash);
      if (entry && entry.until <= now) {
        entries.delete(hash);
        return undefined;
      }
      return entry;
    },
    set(hash: string, entry: VerifiedKey, since: number) {
      if (since !== epoch) return;
      if (entries.size >= MAX_VERIFIED_KEYS) entries.delete(entries.keys().next().value as string);
      entries.set(hash, entry);
    },
    forgetDeployment(deploymentId: string) {
      epoch++;
      for (const [hash, entry] of entries) if (entry.deploymentId === deploymentId) entries.delete(hash);
    },
  };
}

// One cache per Prisma client, i.e. per app: generateApiKey(db, …) reaches the cache of the app that
// owns `db`, and two apps in one process (tests) never share entries.
const verifiedKeyCaches = new WeakMap<Db, ReturnType<typeof createVerifiedKeyCache>>();
function verifiedKeysOf(db: Db) {
  let cache = verifiedKeyCaches.get(db);
  if (!cache) verifiedKeyCaches.set(db, (cache = createVerifiedKeyCache()));
  return cache;
}

export function createApiKeyVerifier(db: Db, onError: (error: unknown) => void) {
  const lastWritten = new Map<string, number>();
  const verified = verifiedKeysOf(db);
  const inFlight = new Map<string, { since: number; promise: Promise<{ id: string; deploymentId: string; revokedAt: Date | null; expiresAt: Date | null } | null> }>();

  /** Notes that a verified key was used (lastUsedAt, written at most once a minute per key). */
  function recordUse(apiKeyId: string, now = Date.now()): void {
    if ((lastWritten.get(apiKeyId) ?? 0) + LAST_USED_RESOLUTION_MS > now) return;
    lastWritten.set(apiKeyId, now);
    db.apiKey.update({ where: { id: apiKeyId }, data: { lastUsedAt: new Date(now) } }).catch(onError);
  }

  async function verifyApiKey(presented: string): Promise<ApiKeyCheck> {
    const hash = apiKeyHash(presented);
    if (!hash) return { ok: false };
    const cached = verified.get(hash, Date.now());
    if (cached) {
      recordUse(cached.apiKeyId);
      return { ok: true, apiKeyId: cached.apiKeyId, deploymentId: cached.deploymentId, expiresAt: cached.expiresAt };
    }
    const since = verified.epoch;
    // Concurrent requests with the same key share one lookup (when an entry runs out under load,
    // every request in flight would otherwise ask at once), unless a revocation came in between.
    let lookup = inFlight.get(hash);
    if (!lookup || lookup.since !== since) {
      // Looking up by the hash is the constant-time part: the secret itself is never compared.
      const started = db.apiKey
        .findUnique({ where: { hash }, select: { id: true, deploymentId: true, revokedAt: true, expiresAt: true } })
        .finally(() => {
          if (inFlight.get(hash)?.promise === started) inFlight.delete(hash);
        });
      lookup = { since, promise: started };
      inFlight.set(hash, lookup);
    }
    const key = await lookup.promise;
    const now = Date.now();
    // Only usable keys are remembered: a key generated a moment ago works at once.
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now)) return { ok: false };
    const until = Math.min(now + VERIFIED_KEY_TTL_MS, key.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    verified.set(hash, { apiKeyId: key.id, deploymentId: key.deploymentId, expiresAt: key.expiresAt, until }, since);
    recordUse(key.id, now);
    return { ok: true, apiKeyId: key.id, deploymentId: key.deploymentId, expiresAt: key.expiresAt };
  }

  return Object.assign(verifyApiKey, { recordUse });
}
