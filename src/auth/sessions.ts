import type { Clock } from "../clock.ts";
import { randomToken, sha256Hex } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { Sql } from "../db/sql.ts";
import type { Revocations } from "./revocations.ts";

/**
 * How long this instance trusts a session it found without asking the database again: every
 * console request presents one, and the lookup was most of a console request's cost
 * (docs/benchmarks.md). Ending sessions on this instance (revoke) drops their entries at
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

export type Sessions = ReturnType<typeof createSessions>;

/**
 * Console sessions: a random bearer token handed out once; only its sha256 is stored. The
 * capability owns what this instance remembers of them (one per app, built in src/app.ts), and
 * decides expiry by `clock`.
 */
export function createSessions({ prisma, sql, revocations, clock }: { prisma: Db; sql: Sql; revocations: Revocations; clock: Clock }) {
  const entries = new Map<string, CachedSession>(); // by the token's hash
  const inFlight = new Map<string, { since: number; promise: Promise<FoundSession | undefined> }>();
  // Bumped by every eviction: a lookup that read the database before a session ended must not put
  // its (now stale) answer back afterwards.
  let epoch = 0;
  const remember = (hash: string, entry: CachedSession, since: number) => {
    if (since !== epoch) return;
    if (entries.size >= MAX_CACHED_SESSIONS) entries.delete(entries.keys().next().value as string);
    entries.set(hash, entry);
  };

  async function create(userId: string, ttlHours: number) {
    const token = `sy_session_${randomToken(32)}`;
    const expiresAt = new Date(clock.now().getTime() + ttlHours * 3_600_000);
    await prisma.session.create({ data: { tokenHash: sha256Hex(token), userId, expiresAt } });
    return { token, expiresAt };
  }

  /**
   * The live session behind a token, in one prepared statement (no Prisma: this runs on every
   * console request), remembered for SESSION_CACHE_TTL_MS. Concurrent lookups of one token share a
   * query unless a session ended in between.
   */
  async function find(token: string): Promise<FoundSession | undefined> {
    const hash = sha256Hex(token);
    const now = clock.now().getTime();
    const cached = entries.get(hash);
    if (cached) {
      if (cached.until > now) return cached;
      entries.delete(hash);
    }
    const since = epoch;
    let lookup = inFlight.get(hash);
    if (!lookup || lookup.since !== since) {
      const started = sql
        .query<FoundSession>(
          // Timestamps are UTC `timestamp without time zone`; the clock's time is given as UTC too.
          `select id, user_id as "userId", expires_at at time zone 'UTC' as "expiresAt" from session
            where token_hash = $1 and expires_at > ($2::timestamptz at time zone 'utc')`,
          [hash, new Date(now).toISOString()],
          "session_by_token_hash",
        )
        .then((rows) => rows[0])
        .finally(() => {
          if (inFlight.get(hash)?.promise === started) inFlight.delete(hash);
        });
      lookup = { since, promise: started };
      inFlight.set(hash, lookup);
    }
    const session = await lookup.promise;
    if (!session) return undefined;
    const until = Math.min(clock.now().getTime() + SESSION_CACHE_TTL_MS, new Date(session.expiresAt).getTime());
    remember(hash, { ...session, until }, since);
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
  async function revoke(userId: string, options: { only?: string; except?: string } = {}): Promise<number> {
    const id = options.only !== undefined ? options.only : options.except !== undefined ? { not: options.except } : undefined;
    const { count } = await prisma.session.deleteMany({ where: { userId, ...(id !== undefined ? { id } : {}) } });
    epoch++;
    for (const [hash, entry] of entries) {
      const ends = options.only !== undefined ? entry.id === options.only : options.except !== undefined ? entry.id !== options.except : true;
      if (entry.userId === userId && ends) entries.delete(hash);
    }
    revocations.announce({ kind: "sessions", userId });
    return count;
  }

  return { create, find, revoke };
}
