import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Sql } from "../../db/sql.ts";
import { isDatabaseOutOfService } from "../../db/errors.ts";
import type { ClaimedDelivery } from "./claim.ts";
import { signingSecretsInForce } from "./fragments.ts";

/**
 * The replay check of schemes that sign no timestamp (GitHub, Jira), made by the accepting
 * statement itself: the request's first event claims its body's digest for its delivery in
 * `inbound_body_digest` (written only here). A row says "these bytes came for this deployment and
 * connector at seen_at, as the delivery `key`". The claim holds when the body is new within the
 * window, or it is the same delivery again (a provider's retry); it fails when the same bytes came
 * within the window under another key: a captured delivery replayed with a new id. Then the event
 * is not stored (`replayed`). Claim and event commit together, so a failed recording leaves no claim.
 * A row past its window counts for nothing here (taken over by the next claim of its bytes); the
 * retention job deletes such rows (../../retention/prune.ts), off the accepting path, where pruning
 * them used to cost every accepting statement its own index probe and delete.
 */
export interface BodyClaim {
  /** The raw body's digest (connectors/signatures.ts bodyDigest). */
  digest: string;
  /** The request's events' dedupe keys, made storable: the same for a provider's retry of the delivery. */
  key: string;
  /** The connector's replay window. */
  windowSeconds: number;
}

/** What enqueue stores: an event (already made storable) and, maybe, its delivery. */
export interface EventToEnqueue {
  eventId: string;
  deliveryId: string;
  deploymentId: string;
  connectedAccountId: string | null;
  connector: string;
  trigger: string;
  account: string;
  /** The event's data as JSON text, an object (valid JSON: it is placed as it is inside the batch's JSON document). */
  payloadJson: string;
  /** The watched resource's params (§13); null: not tied to a resource. */
  resource?: Record<string, string> | null;
  occurredAt: Date;
  dedupeKey: string;
  /** Queue a delivery even when the trigger is not in the Forwarding Trigger List (sendTestEvent). */
  forwardUnlisted: boolean;
  /** Route by these external ids (most specific first) instead of the given account; null: the given account. */
  routeBy: string[] | null;
  /**
   * An SQL/JSON path in the account's metadata whose values also route (after the external id
   * itself): a Xero connection's other organisations. null: the external id alone.
   */
  routeByMetadata: string | null;
  /** The request's replay check (its first event only); null: none. */
  bodyClaim: BodyClaim | null;
}

export interface EnqueuedRow {
  account_id: string | null;
  account: string | null;
  event_id: string | null;
  delivery_id: string | null;
  url: string | null;
  received_at: Date | string | null;
  /** The event's body claim failed (a replay): nothing was stored. */
  replayed: boolean;
  /** The delivery was recorded already leased to this instance's worker (LocalLease). */
  leased: boolean;
  /** When leased: what the claim would have read for the attempt (the values still sealed). */
  header_key: string | null;
  header_value_encrypted: string | null;
  signing_secrets: string[] | null;
}

/**
 * What this instance's worker takes straight from the accepting statement, with no claim round
 * trip (../handoff.ts): up to `slots` of the batch's due deliveries, at most `perUrl` in flight to
 * one URL counting the `inFlight` it already has there, each leased for `leaseMs` as a claim would.
 */
export interface LocalLease {
  slots: number;
  perUrl: number;
  inFlight: ReadonlyMap<string, number>;
  leaseMs: number;
}

const NO_LEASE: LocalLease = { slots: 0, perUrl: 0, inFlight: new Map(), leaseMs: 0 };

/**
 * enqueue: (nothing) → PENDING, due now while the deployment forwards, held otherwise (HELD: paused,
 * disabled, or no forwarding URL saved yet) — or, for the deliveries this instance's worker has a
 * free slot for (`lease`), in flight already: leased to it as a claim would (locked_until, one
 * claim counted), so it sends them without claiming. After a crash such a row waits out its lease
 * like any row in flight, then it is due again.
 *
 * ONE statement for a batch of events (group commit, createEnqueuer below): each event and — only
 * when its (connector, trigger) is in the deployment's Forwarding Trigger List and a forwarding URL
 * is set (or it is a test event) — its delivery commit together or not at all. Routing (the ACTIVE
 * ConnectedAccount for the most specific external id, the oldest connection when several share it)
 * is in the same statement. A provider's retry (same dedupe key, stored before or earlier in the
 * same batch) writes nothing: its `event_id` comes back null. Nothing else is written: the account's
 * lastEventAt is derived from its newest event (connections/lastEventAt.ts), so no two events ever
 * wait on one shared row's lock. One row comes back per event, in the order given.
 */
export async function enqueue(sql: Sql, events: readonly EventToEnqueue[], now: Date, lease: LocalLease = NO_LEASE): Promise<EnqueuedRow[]> {
  const busy = [...lease.inFlight];
  return sql.query<EnqueuedRow>(
    `with given as (
       -- One JSON document for the batch ($1), each column named where it is read and each event's
       -- payload text inside its row as it was stored: no array literals (pg escapes every element of
       -- one, and a payload is mostly quotes), no columns matched up by position.
       select * from json_to_recordset($1::json) as t(
         ord int, event_id text, delivery_id text, deployment_id text, connected_account_id text, connector text, trigger text,
         account text, payload json, occurred_at timestamp, dedupe_key text, forward_unlisted boolean, route_by jsonb,
         route_by_metadata text, resource jsonb, claim_digest text, claim_key text, claim_window float8)
     ), claim as (
       select ord, deployment_id, connector, claim_digest as digest, claim_key as dedupe_key,
              $7::timestamp - make_interval(secs => claim_window) as cutoff
       from given where claim_digest is not null
     ), claimed as (
       -- Safe under concurrency: a conflicting row is locked and re-read; one past its window is taken over.
       insert into inbound_body_digest as d (deployment_id, connector, digest, dedupe_key, seen_at)
       select deployment_id, connector, digest, dedupe_key, $7::timestamp from claim order by ord
       on conflict (deployment_id, connector, digest) do update
         set (dedupe_key, seen_at) = (
           select case when d.seen_at < mine.cutoff then excluded.dedupe_key else d.dedupe_key end,
                  case when d.seen_at < mine.cutoff then excluded.seen_at else d.seen_at end
           from claim mine
           where mine.deployment_id = excluded.deployment_id and mine.connector = excluded.connector and mine.digest = excluded.digest)
       returning deployment_id, connector, digest, dedupe_key
     ), i as (
       select given.*, given.claim_digest is null or exists (
                select 1 from claimed c
                where c.deployment_id = given.deployment_id and c.connector = given.connector and c.digest = given.claim_digest
                  and c.dedupe_key = given.claim_key) as admitted
       from given
     ), routed as (
       -- acct: the given account (route_by null), or the routed one (route_by = the candidate external ids, as JSON).
       select i.*, acct.id as account_id, acct.account as account_name
       from i
       -- An aggregate, so the planner keeps rb a relation of its own: rb.ids then reaches the account
       -- lookup as a plain parameter, which the (deployment, connector, external id) index takes; a
       -- subquery expression there cannot be an index condition (every account of the connector scanned).
       -- No candidate ids ('[]') route nowhere: the event is not stored, but its body claim is made.
       cross join lateral (select case when i.route_by is null then null else coalesce(array_agg(id), '{}') end as ids
                           from jsonb_array_elements_text(coalesce(i.route_by, '[]')) as id) rb
       left join lateral (
         select id, account from (
           select a.id, a.account, array_position(rb.ids, a.external_id) as rank, a.created_at
           from connected_account a
           where rb.ids is not null and a.deployment_id = i.deployment_id and a.connector = i.connector and a.status = 'ACTIVE'
             and a.external_id = any(rb.ids)
           union all
           -- After the external id itself: an account whose metadata names one of the ids (only for
           -- connectors that declare where; a one-time filter otherwise).
           select a.id, a.account, cardinality(rb.ids) + 1, a.created_at
           from connected_account a
           where i.route_by_metadata is not null and rb.ids is not null and a.deployment_id = i.deployment_id and a.connector = i.connector
             and a.status = 'ACTIVE'
             and exists (select 1 from jsonb_path_query(a.metadata, i.route_by_metadata::jsonpath) v where v #>> '{}' = any(rb.ids))
           union all
           select i.connected_account_id, i.account, 0, null where rb.ids is null
         ) candidates
         order by rank, created_at, id
         limit 1
       ) acct on i.admitted
     ), target as (
       -- Where each routed event's delivery goes, if it gets one.
       select r.ord, r.event_id, r.delivery_id, r.deployment_id, t.forwarding_url, t.active
       from routed r
       cross join lateral (
         select s.forwarding_url, s.status = 'ACTIVE' as active from forwarding_settings s
         where s.deployment_id = r.deployment_id
           and (r.forward_unlisted or exists (
             select 1 from forwarding_trigger t where t.deployment_id = r.deployment_id and t.connector = r.connector and t.trigger = r.trigger))
         union all
         -- A test event before any forwarding URL is saved: queued, held, sent once a URL is saved.
         select null, false where r.forward_unlisted and not exists (select 1 from forwarding_settings s where s.deployment_id = r.deployment_id)
       ) t
       where r.account_name is not null
     ), ins as (
       -- Two events of the batch with one dedupe key: the first is stored, the other writes nothing (as a retry).
       insert into trigger_event (id, deployment_id, connected_account_id, connector, trigger, account, payload, occurred_at, dedupe_key, resource)
       select r.event_id, r.deployment_id, r.account_id, r.connector, r.trigger, r.account_name, r.payload, r.occurred_at, r.dedupe_key, r.resource
       from routed r
       where r.account_name is not null order by r.ord
       on conflict (deployment_id, dedupe_key) do nothing
       returning id, received_at
     ), fitting as (
       -- The local worker's per-URL share: what it has in flight there ($3, $4) plus this batch's, up to $5.
       select target.*, ins.received_at as event_received_at, target.active and target.forwarding_url is not null
              and coalesce(b.n, 0) + row_number() over (partition by target.forwarding_url order by target.ord) <= $5 as fits
       from target join ins on ins.id = target.event_id
       left join unnest($3::text[], $4::int[]) as b(url, n) on b.url = target.forwarding_url
     ), placed as (
       -- ... and its free slots ($2), oldest first.
       select fitting.*, fits and row_number() over (partition by fits order by ord) <= $2 as leased from fitting
     ), del as (
       insert into delivery (id, event_id, deployment_id, url, next_attempt_at, updated_at, created_at, event_received_at, locked_until, claim_count)
       select delivery_id, event_id, deployment_id, forwarding_url, case when active then $7::timestamp end, $7::timestamp, $7::timestamp, event_received_at,
              case when leased then $7::timestamp + ($6::int * interval '1 millisecond') end, case when leased then 1 else 0 end
       from placed order by ord
       returning id, event_id, url, locked_until is not null as leased
     )
     select r.account_id, r.account_name as account, not r.admitted as replayed, ins.id as event_id, ins.received_at at time zone 'UTC' as received_at,
            del.id as delivery_id, del.url, coalesce(del.leased, false) as leased,
            s.header_key, s.header_value_encrypted,
            case when del.leased then ${signingSecretsInForce("r.deployment_id", "$7")} end as signing_secrets
     from routed r
     left join ins on ins.id = r.event_id
     left join del on del.event_id = r.event_id
     left join forwarding_settings s on del.leased and s.deployment_id = r.deployment_id
     order by r.ord`,
    [
      batchDocument(events),
      lease.slots,
      busy.map(([url]) => url),
      busy.map(([, n]) => n),
      lease.perUrl,
      lease.leaseMs,
      now.toISOString(),
    ],
    "record_events",
  );
}

/** The batch as the accepting statement's one JSON document: a row per event, in order, its payload's text placed inside as it is. */
function batchDocument(events: readonly EventToEnqueue[]): string {
  const rows = events.map((event, index) => {
    const columns = JSON.stringify({
      ord: index + 1,
      event_id: event.eventId,
      delivery_id: event.deliveryId,
      deployment_id: event.deploymentId,
      connected_account_id: event.connectedAccountId,
      connector: event.connector,
      trigger: event.trigger,
      account: event.account,
      occurred_at: event.occurredAt.toISOString(),
      dedupe_key: event.dedupeKey,
      forward_unlisted: event.forwardUnlisted,
      route_by: event.routeBy,
      route_by_metadata: event.routeByMetadata,
      resource: event.resource ?? null,
      claim_digest: event.bodyClaim?.digest ?? null,
      claim_key: event.bodyClaim?.key ?? null,
      claim_window: event.bodyClaim?.windowSeconds ?? null,
    });
    // The payload is JSON text already (an object, never null): placed as it is, not parsed and written again.
    return `${columns.slice(0, -1)},"payload":${event.payloadJson}}`;
  });
  return `[${rows.join(",")}]`;
}

/** A slot reservation of this instance's worker for one batch (../handoff.ts). */
export interface Reservation {
  lease: LocalLease;
  /** Hands it the deliveries leased to it (and frees the slots not used). Called once, [] on failure. */
  adopt(deliveries: ClaimedDelivery[]): void;
}

export interface EnqueuerDeps {
  sql: Sql;
  /** The app's clock: the delivery's times (due, lease, created) are its, as in every statement of the queue. */
  clock: Clock;
  logger: Logger;
  /** Reserves the local worker's free slots for a batch; undefined when none (no worker here, or busy). */
  reserve: (max: number) => Reservation | undefined;
}

/** The most events one statement records. */
export const MAX_BATCH = 256;

/**
 * Group commit over enqueue, as createAttemptRecorder is over recordAttempts: at most one
 * recording statement in flight; the events that arrive meanwhile go together in the next one.
 * Idle, an event is recorded at once (a batch of one); busy, one round trip, one transaction and
 * one WAL flush record up to MAX_BATCH. Each caller still waits for its own row to commit.
 *
 * A batch the database refuses records nothing (one statement). When the database is down or its
 * disk full, every caller in it gets that error (503: the provider redelivers); otherwise the batch is recorded
 * again one event per statement, so only the refused event fails.
 */
export function createEnqueuer({ sql, clock, logger, reserve }: EnqueuerDeps) {
  type Entry = { event: EventToEnqueue; resolve: (row: EnqueuedRow | undefined) => void; reject: (error: unknown) => void };
  let waiting: Entry[] = [];
  let recording = false;

  /**
   * Up to MAX_BATCH of the waiting events, in arrival order; the rest keep waiting. Two body claims
   * of one digest never share a statement (it cannot upsert one row twice): the later waits for the
   * next, so it sees what the first claimed (a replay, or the same delivery again).
   */
  function nextBatch(): Entry[] {
    const batch: Entry[] = [];
    const later: Entry[] = [];
    const digests = new Set<string>();
    for (const entry of waiting) {
      const { bodyClaim, deploymentId, connector } = entry.event;
      const digest = bodyClaim && `${deploymentId}\u0000${connector}\u0000${bodyClaim.digest}`;
      if (batch.length < MAX_BATCH && !(digest && digests.has(digest))) {
        if (digest) digests.add(digest);
        batch.push(entry);
      } else later.push(entry);
    }
    waiting = later;
    // Sorted by dedupe key: two instances' statements meet on the unique index in the same order.
    return batch.sort((a, b) => (a.event.dedupeKey < b.event.dedupeKey ? -1 : a.event.dedupeKey > b.event.dedupeKey ? 1 : 0));
  }

  async function recordBatch(batch: Entry[]) {
    const reservation = reserve(batch.length);
    const leased: ClaimedDelivery[] = [];
    let rows: EnqueuedRow[];
    try {
      rows = await enqueue(sql, batch.map((entry) => entry.event), clock.now(), reservation?.lease);
      rows.forEach((row, index) => {
        if (!row.leased || !row.delivery_id || !row.url) return;
        const { event } = batch[index];
        leased.push({
          id: row.delivery_id,
          deploymentId: event.deploymentId,
          url: row.url,
          attempts: 0,
          cycleStart: 0,
          event: {
            id: event.eventId,
            connector: event.connector,
            trigger: event.trigger,
            account: row.account ?? event.account,
            occurredAt: event.occurredAt,
            resource: event.resource ?? null,
            // The text just stored (json keeps it as written): what every later attempt sends too.
            payloadJson: event.payloadJson,
          },
          headerKey: row.header_key,
          headerValueSealed: row.header_value_encrypted,
          signingSecretsSealed: row.signing_secrets ?? [],
        });
      });
    } finally {
      // Always, so reserved slots are never lost: what was leased is sent; on failure nothing was written.
      reservation?.adopt(leased);
    }
    batch.forEach((entry, index) => entry.resolve(rows[index]));
  }

  /**
   * A batch takes the events arriving now: those of this turn of the event loop. Where the database
   * runs on this thread (sql.runsOnThisThread) no request is read while a statement runs, so the
   * events that came meanwhile are still unread when it returns: each batch waits for the next
   * turn's reads (setImmediate). Without that a batch held one event (docs/benchmarks.md).
   */
  const sameThread = sql.runsOnThisThread === true;
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function flush() {
    recording = true;
    await (sameThread ? nextTurn() : Promise.resolve());
    while (waiting.length > 0) {
      const batch = nextBatch();
      try {
        await recordBatch(batch);
      } catch (error) {
        if (batch.length === 1 || isDatabaseOutOfService(error)) {
          for (const entry of batch) entry.reject(error);
          continue;
        }
        logger.warn({ err: error, events: batch.length }, "a batch of inbound events could not be recorded; recording them one by one");
        for (const entry of batch) {
          await recordBatch([entry]).catch((single) => entry.reject(single));
        }
      }
      if (sameThread) await nextTurn();
    }
    recording = false;
  }

  /** Records one event (batched with others arriving meanwhile); resolves once its row committed. */
  return function record(event: EventToEnqueue): Promise<EnqueuedRow | undefined> {
    return new Promise((resolve, reject) => {
      waiting.push({ event, resolve, reject });
      if (!recording) void flush();
    });
  };
}

export type Enqueuer = ReturnType<typeof createEnqueuer>;
