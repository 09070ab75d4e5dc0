import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { Sql } from "../db/sql.ts";
import { revocationsOf } from "./revocations.ts";

/** Console sessions: a random bearer token handed out once; only its sha256 is stored. */
export async function createSession(db: Db, userId: string, ttlHours: number) {
  const token = `sy_session_${randomToken(32)}`;
  const expiresAt = new Date(Date.now() + ttlHours * 3_600_000);
  await db.session.create({ data: { tokenHash: sha256Hex(token), userId, expiresAt } });
  return { token, expiresAt };
}

/**
 * How long this instance trusts a session it found without asking the database again: every
 * console request presents one, and the lookup was most of a console request's cost
 * (docs/benchmarks.md). Ending sessions on this instance (revokeSessions) drops their entries at
 * once; an instance sharing the database may accept a session ended elsewhere for at
 * most this long. An entry never outlives the session's own expiresAt.
 */
export const SESSION_CACHE_TTL_MS = 2_000;
const MAX_CACHED_SESSIONS = 10_000;

export interface FoundSession {
  id: string;
  userId: string;
  expiresAt: Date;
}

interface CachedSession extends FoundSession {
  until: number;
}

function createSessionCache() {
  const entries = new Map<string, CachedSession>(); // by the token's hash
  const inFlight = new Map<string, { since: number; promise: Promise<FoundSession | undefined> }>();
  // Bumped by every eviction: a lookup that read the database before a session ended must not put
  // its (now stale) answer back afterwards.
  let epoch = 0;
  return {
    entries,
    inFlight,
    get epoch() {
      return epoch;
    },
    set(hash: string, entry: CachedSession, since: number) {
      if (since !== epoch) return;
      if (entries.size >= MAX_CACHED_SESSIONS) entries.delete(entries.keys().next().value as string);
      entries.set(hash, entry);
    },
    forget(matches: (entry: FoundSession) => boolean) {
      epoch++;
      for (const [hash, entry] of entries) if (matches(entry)) entries.delete(hash);
    },
  };
}

// One cache per Prisma client, i.e. per app (as for API keys): revokeSessions(db, …) reaches the cache
// of the app that owns `db`, and two apps in one process (tests) never share entries.
const sessionCaches = new WeakMap<Db, ReturnType<typeof createSessionCache>>();
function sessionsOf(db: Db) {
  let cache = sessionCaches.get(db);
  if (!cache) sessionCaches.set(db, (cache = createSessionCache()));
  return cache;
}

/**
 * The live session behind a token, in one prepared statement (no Prisma: this runs on every
 * console request), remembered for SESSION_CACHE_TTL_MS. Concurrent lookups of one token share a
 * query unless a session ended in between.
 */
export async function findSession(db: Db, sql: Sql, token: string): Promise<FoundSession | undefined> {
  const hash = sha256Hex(token);
  const cache = sessionsOf(db);
  const now = Date.now();
  const cached = cache.entries.get(hash);
  if (cached) {
    if (cached.until > now) return cached;
    cache.entries.delete(hash);
  }
  const since = cache.epoch;
  let lookup = cache.inFlight.get(hash);
  if (!lookup || lookup.since !== since) {
    const started = sql
      .query<FoundSession>(
        // Timestamps are UTC `timestamp without time zone`, hence `now() at time zone 'utc'`.
        `select id, user_id as "userId", expires_at at time zone 'UTC' as "expiresAt" from session
          where token_hash = $1 and expires_at > (now() at time zone 'utc')`,
        [hash],
        "session_by_token_hash",
      )
      .then((rows) => rows[0])
      .finally(() => {
        if (cache.inFlight.get(hash)?.promise === started) cache.inFlight.delete(hash);
      });
    lookup = { since, promise: started };
    cache.inFlight.set(hash, lookup);
  }
  const session = await lookup.promise;
  if (!session) return undefined;
  const until = Math.min(Date.now() + SESSION_CACHE_TTL_MS, new Date(session.expiresAt).getTime());
  cache.set(hash, { ...session, until }, since);
  return session;
}

/**
 * Ends sessions before their time: one (`only`: logOut), or all of a user's but one (`except`:
 * changePassword keeps the session it was made from), or all of them (logOutEverywhere). Every
 * early end of a session goes through here, so this instance's remembered lookups are dropped here
 * too (after the rows are gone): the ended sessions stop working on this instance at once, on
 * others within SESSION_CACHE_TTL_MS. The user's running subscriptions on this instance are told,
 * and those of an ended session stop at once (./revocations.ts). Returns how many ended.
 */
export async function revokeSessions(db: Db, userId: string, options: { only?: string; except?: string } = {}): Promise<number> {
  const id = options.only !== undefined ? options.only : options.except !== undefined ? { not: options.except } : undefined;
  const { count } = await db.session.deleteMany({ where: { userId, ...(id !== undefined ? { id } : {}) } });
  sessionsOf(db).forget(
    (entry) =>
      entry.userId === userId &&
      (options.only !== undefined ? entry.id === options.only : options.except !== undefined ? entry.id !== options.except : true),
  );
  revocationsOf(db).announce({ kind: "sessions", userId });
  return count;
}
