import type { Clock } from "../clock.ts";
import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { badInput, invalidApiKey, missingApiKey } from "../errors.ts";
import type { RateLimit } from "../ratelimit/limiter.ts";
import type { Revocations } from "./revocations.ts";

export const MAX_GRACE_PERIOD_SECONDS = 7 * 24 * 3600;
const KEY_SHAPE = /^sy_[a-z]+_[A-Za-z0-9_-]{32,}$/;
const PREFIX_LENGTH = 12; // "sy_live_" + 4 characters of the secret: enough to tell keys apart

/** `expiresAt`: when a key on its grace period stops working (null: until it is replaced). */
export type ApiKeyCheck = { ok: true; apiKeyId: string; deploymentId: string; expiresAt: Date | null } | { ok: false };

/** The stored hash of a presented key; undefined when it cannot be a key at all (no lookup needed). */
export function apiKeyHash(presented: string): string | undefined {
  return KEY_SHAPE.test(presented) ? sha256Hex(presented) : undefined;
}

/**
 * The SQL condition for "the key `alias` is usable now", the same rule as ApiKeys.check's, for
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

export type ApiKeys = ReturnType<typeof createApiKeys>;

/**
 * Deployments' API keys: issuing, verifying and authenticating them. One per app (src/app.ts); it
 * owns what this instance remembers of verified keys and decides expiry by `clock`. REST and GraphQL
 * both authenticate through `authenticate`: the same messages, the same rate limit, the same
 * last-used recording.
 */
export function createApiKeys({
  prisma,
  revocations,
  rateLimit,
  clock,
  onError,
}: {
  prisma: Db;
  revocations: Revocations;
  /** RATE_LIMIT_PER_MINUTE, spent per key by every authenticated request. */
  rateLimit: RateLimit;
  clock: Clock;
  /** A failed last-used write (logged; the request goes on). */
  onError: (error: unknown) => void;
}) {
  const verified = createVerifiedKeyCache();
  const lastWritten = new Map<string, number>();
  const inFlight = new Map<string, { since: number; promise: Promise<{ id: string; deploymentId: string; revokedAt: Date | null; expiresAt: Date | null } | null> }>();

  /**
   * Issues a deployment's new key and retires the previous one: at once, or at the end of the grace
   * period so a running server can switch over without downtime (as Stripe's "roll key" does).
   * The plaintext is returned once and never stored.
   */
  async function generate(deploymentId: string, deploymentName: string, gracePeriodSeconds: number) {
    if (!Number.isInteger(gracePeriodSeconds) || gracePeriodSeconds < 0 || gracePeriodSeconds > MAX_GRACE_PERIOD_SECONDS) {
      throw badInput(`gracePeriodSeconds must be between 0 and ${MAX_GRACE_PERIOD_SECONDS} (7 days)`, [
        { field: "gracePeriodSeconds", message: "must be between 0 and 604800" },
      ]);
    }
    const word = deploymentName === "production" ? "live" : "test";
    const apiKey = `sy_${word}_${randomToken(32)}`;
    const now = clock.now();
    const key = await prisma.$transaction(async (tx) => {
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
    verified.forgetDeployment(deploymentId);
    revocations.announce({ kind: "apiKeys", deploymentId });
    return { apiKey, key };
  }

  /** The deployment's current key (the newest one still usable), for display. */
  function current(deploymentId: string) {
    const now = clock.now();
    return prisma.apiKey.findFirst({
      where: { deploymentId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      orderBy: { createdAt: "desc" },
    });
  }

  /** Notes that a verified key was used (lastUsedAt, written at most once a minute per key). */
  function recordUse(apiKeyId: string, now = clock.now().getTime()): void {
    if ((lastWritten.get(apiKeyId) ?? 0) + LAST_USED_RESOLUTION_MS > now) return;
    lastWritten.set(apiKeyId, now);
    prisma.apiKey.update({ where: { id: apiKeyId }, data: { lastUsedAt: new Date(now) } }).catch(onError);
  }

  /** Whether a presented key is usable now; neither rate limited nor recorded (a running subscription's re-check). */
  async function check(presented: string): Promise<ApiKeyCheck> {
    const hash = apiKeyHash(presented);
    if (!hash) return { ok: false };
    const cached = verified.get(hash, clock.now().getTime());
    if (cached) return { ok: true, apiKeyId: cached.apiKeyId, deploymentId: cached.deploymentId, expiresAt: cached.expiresAt };
    const since = verified.epoch;
    // Concurrent requests with the same key share one lookup (when an entry runs out under load,
    // every request in flight would otherwise ask at once), unless a revocation came in between.
    let lookup = inFlight.get(hash);
    if (!lookup || lookup.since !== since) {
      // Looking up by the hash is the constant-time part: the secret itself is never compared.
      const started = prisma.apiKey
        .findUnique({ where: { hash }, select: { id: true, deploymentId: true, revokedAt: true, expiresAt: true } })
        .finally(() => {
          if (inFlight.get(hash)?.promise === started) inFlight.delete(hash);
        });
      lookup = { since, promise: started };
      inFlight.set(hash, lookup);
    }
    const key = await lookup.promise;
    const now = clock.now().getTime();
    // Only usable keys are remembered: a key generated a moment ago works at once.
    if (!key || key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now)) return { ok: false };
    const until = Math.min(now + VERIFIED_KEY_TTL_MS, key.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    verified.set(hash, { apiKeyId: key.id, deploymentId: key.deploymentId, expiresAt: key.expiresAt, until }, since);
    return { ok: true, apiKeyId: key.id, deploymentId: key.deploymentId, expiresAt: key.expiresAt };
  }

  /**
   * The deployment behind a presented key (the `x-api-key` header, or graphql-ws's connection
   * parameter), after its rate limit: MISSING_API_KEY, INVALID_API_KEY or RATE_LIMITED otherwise.
   */
  async function authenticate(presented: string | undefined): Promise<{ apiKeyId: string; deploymentId: string; expiresAt: Date | null }> {
    if (!presented) throw missingApiKey();
    // A key this instance verified within VERIFIED_KEY_TTL_MS: no promise until the rate limit (the proxy's hot path).
    const hash = apiKeyHash(presented);
    const cached = hash === undefined ? undefined : verified.get(hash, clock.now().getTime());
    const result = cached ? { ok: true as const, apiKeyId: cached.apiKeyId, deploymentId: cached.deploymentId, expiresAt: cached.expiresAt } : await check(presented);
    if (!result.ok) throw invalidApiKey();
    recordUse(result.apiKeyId);
    await rateLimit.consume(result.apiKeyId);
    return result;
  }

  /**
   * The same outcomes as `authenticate` followed by `work`, in one database round trip: `work`
   * receives the key's hash and checks the key itself in its query (undefined: no usable key has
   * that hash). The rate limit is spent after the query, since the key's id is known only then.
   */
  async function authenticateWith<T extends { apiKeyId: string }>(presented: string | undefined, work: (keyHash: string) => Promise<T | undefined>): Promise<T> {
    if (!presented) throw missingApiKey();
    const hash = apiKeyHash(presented);
    const result = hash === undefined ? undefined : await work(hash);
    if (!result) throw invalidApiKey();
    await rateLimit.consume(result.apiKeyId);
    recordUse(result.apiKeyId);
    return result;
  }

  return { generate, current, check, recordUse, authenticate, authenticateWith };
}
