import type { Sql } from "../db/sql.ts";
import { storableText } from "../text/storable.ts";

/**
 * inbound_body_digest's one owner: the replay check of schemes that sign no timestamp (GitHub,
 * Jira). A row says "these bytes came for this deployment and connector at seen_at, as the
 * delivery dedupe_key"; it is written only here, and pruned here once past its connector's window.
 */

/** One request's claim on its body's digest. */
export interface BodyClaim {
  deploymentId: string;
  connector: string;
  /** The raw body's digest (connectors/signatures.ts bodyDigest). */
  digest: string;
  /** The request's events' dedupe keys: the same for a provider's retry of the delivery. */
  dedupeKey: string;
  /** When the request came (the app's clock). */
  now: Date;
  /** The connector's replay window. */
  windowSeconds: number;
}

/**
 * Claims each body's digest for its delivery, ONE statement for a batch. A claim holds (true) when
 * the body is new within the window, or it is the same delivery again (a provider retry, or a
 * retry after a failed recording: the claim is kept, so it must not block its own delivery). It
 * fails (false) when the same bytes came within the window under another dedupe key: a captured
 * delivery replayed with a new id. Safe under concurrency (a conflicting row is locked and re-read);
 * a row past its window is overwritten, and the batch's deployments' and connectors' other expired
 * rows are pruned on the way.
 *
 * No two claims of the batch may share (deployment, connector, digest): one statement cannot
 * affect a row twice (createBodyClaims keeps the later one for the next batch). One answer per
 * claim, in the order given.
 */
export async function claimBodies(sql: Sql, claims: readonly BodyClaim[]): Promise<boolean[]> {
  // As the event's own dedupe key is stored (forwarding/record.ts): a NUL from a body's delivery id
  // would fail the whole batch's statement, every concurrent request with it.
  const keys = claims.map((claim) => storableText(claim.dedupeKey));
  const rows = await sql.query<{ dedupe_key: string | null }>(
    `with i as (
       select t.*, t.seen_at - make_interval(secs => t.window_seconds) as cutoff
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[], $6::float8[])
         with ordinality as t(deployment_id, connector, digest, dedupe_key, seen_at, window_seconds, ord)
     ), pruned as (
       -- Not the batch's own digests: those rows are the insert's to lock and re-read.
       delete from inbound_body_digest d
       using i
       where d.deployment_id = i.deployment_id and d.connector = i.connector and d.seen_at < i.cutoff
         and not exists (select 1 from i mine where mine.deployment_id = d.deployment_id and mine.connector = d.connector and mine.digest = d.digest)
     ), claimed as (
       insert into inbound_body_digest as d (deployment_id, connector, digest, dedupe_key, seen_at)
       select deployment_id, connector, digest, dedupe_key, seen_at from i order by ord
       on conflict (deployment_id, connector, digest) do update
         set (dedupe_key, seen_at) = (
           select case when d.seen_at < mine.cutoff then excluded.dedupe_key else d.dedupe_key end,
                  case when d.seen_at < mine.cutoff then excluded.seen_at else d.seen_at end
           from i mine
           where mine.deployment_id = excluded.deployment_id and mine.connector = excluded.connector and mine.digest = excluded.digest)
       returning deployment_id, connector, digest, dedupe_key
     )
     select c.dedupe_key
     from i left join claimed c on c.deployment_id = i.deployment_id and c.connector = i.connector and c.digest = i.digest
     order by i.ord`,
    [
      claims.map((claim) => claim.deploymentId),
      claims.map((claim) => claim.connector),
      claims.map((claim) => claim.digest),
      keys,
      claims.map((claim) => claim.now.toISOString()),
      claims.map((claim) => claim.windowSeconds),
    ],
    "inbound_claim_bodies",
  );
  return rows.map((row, index) => row.dedupe_key === keys[index]);
}

/** The most claims one statement makes. */
export const MAX_BATCH = 256;

const keyOf = (claim: BodyClaim) => `${claim.deploymentId}\u0000${claim.connector}\u0000${claim.digest}`;

/**
 * Group commit over claimBodies, as createEnqueuer (delivery/queue/enqueue.ts) is over recording
 * events: every webhook of a scheme without a signed timestamp claims its body before its events
 * are recorded, so a statement of its own per request would be one more WAL flush per request.
 * At most one claiming statement is in flight; the claims that arrive meanwhile go together in the
 * next. Two claims of one digest never share a statement: the later waits for the next batch, so
 * it sees what the first one claimed (a replay, or the same delivery again). A batch the database
 * refuses claims nothing, and every caller in it gets that error (the request answers 5xx, the
 * provider redelivers).
 */
export function createBodyClaims({ sql }: { sql: Sql }) {
  type Entry = { claim: BodyClaim; resolve: (claimed: boolean) => void; reject: (error: unknown) => void };
  let waiting: Entry[] = [];
  let claiming = false;

  /** Up to MAX_BATCH of the waiting claims, in arrival order, one per digest; the rest keep waiting. */
  function nextBatch(): Entry[] {
    const batch: Entry[] = [];
    const later: Entry[] = [];
    const keys = new Set<string>();
    for (const entry of waiting) {
      const key = keyOf(entry.claim);
      if (batch.length < MAX_BATCH && !keys.has(key)) {
        keys.add(key);
        batch.push(entry);
      } else later.push(entry);
    }
    waiting = later;
    // Sorted by key: two instances' statements meet on the primary key in the same order.
    return batch.sort((a, b) => (keyOf(a.claim) < keyOf(b.claim) ? -1 : keyOf(a.claim) > keyOf(b.claim) ? 1 : 0));
  }

  async function flush() {
    claiming = true;
    // Claims that arrive in the same turn of the event loop go in the same statement.
    await Promise.resolve();
    while (waiting.length > 0) {
      const batch = nextBatch();
      try {
        const claimed = await claimBodies(sql, batch.map((entry) => entry.claim));
        batch.forEach((entry, index) => entry.resolve(claimed[index]));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    claiming = false;
  }

  /** Claims one body (batched with others arriving meanwhile); resolves once the claim committed. */
  return function claim(claim: BodyClaim): Promise<boolean> {
    return new Promise((resolve, reject) => {
      waiting.push({ claim, resolve, reject });
      if (!claiming) void flush();
    });
  };
}

export type BodyClaims = ReturnType<typeof createBodyClaims>;
