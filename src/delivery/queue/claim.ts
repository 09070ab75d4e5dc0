import type { Sql } from "../../db/sql.ts";
import { signingSecretsInForce } from "./fragments.ts";
import type { DeliveryRow } from "./row.ts";

/** A due PENDING row of `d` that no worker holds (no lease, or an expired one). */
/** `$6` is the app's clock (clock.now()), as in every statement of the queue. */
const DUE_UNCLAIMED = `d.status = 'PENDING' and d.next_attempt_at <= $6::timestamp and (d.locked_until is null or d.locked_until < $6::timestamp)`;

/** A due delivery, claimed by one worker until `lockedUntil`, with what is needed to send it. */
export interface ClaimedDelivery {
  id: string;
  deploymentId: string;
  url: string;
  /** Attempts made before this one. */
  attempts: number;
  /** Attempts made before the current cycle of retries: the retry schedule counts from here. */
  cycleStart: number;
  event: {
    id: string;
    connector: string;
    trigger: string;
    account: string;
    occurredAt: Date;
    /** The event's data as stored: JSON text, forwarded as it is (the same bytes on every attempt). */
    payloadJson: string;
    /** The watched resource's params when the event came from a resource's subscription (§13). */
    resource: Record<string, string> | null;
  };
  /** The operator's header as the settings hold it now (the value still sealed). */
  headerKey: string | null;
  headerValueSealed: string | null;
  /**
   * The deployment's signing secrets in force at claim time, still sealed, current first (then the
   * previous one during a rotation's 24 h overlap) — read here so an attempt needs no query of its own.
   */
  signingSecretsSealed: string[];
}

/**
 * How many times a delivery may be claimed without an attempt being recorded. Each such claim sent
 * the request (or may have): a claim whose result cannot be stored — a crash between the answer and
 * the recording statement, or a row the database refuses — leaves the delivery due again when its
 * lease runs out, and without a bound the receiver would get it again every lease, forever. After
 * this many, the next claim marks it FAILED with a reason instead of sending it; retry and
 * replay start it again (and reset the count). Five: more than any run of crashes or
 * database hiccups a healthy deployment sees in a row, few enough to stop a poisoned row quickly.
 */
export const MAX_UNRECORDED_CLAIMS = 5;

/** The reason a delivery stopped by MAX_UNRECORDED_CLAIMS shows as its lastError. */
export const UNRECORDED_CLAIMS_ERROR =
  `Sent ${MAX_UNRECORDED_CLAIMS} times without any attempt being recorded (the outcome could not be stored), so it is no longer sent. ` +
  "Retry or replay it once the cause is fixed.";

export interface Claim {
  /** To send now. */
  claimed: ClaimedDelivery[];
  /** Not sent: FAILED by this claim (MAX_UNRECORDED_CLAIMS). */
  givenUp: DeliveryRow[];
}

/**
 * claim: due PENDING → in flight (PENDING with a lease, `locked_until`), or FAILED past the cap.
 * Claims up to `limit` due deliveries for `lockMs`. `FOR UPDATE SKIP LOCKED` lets any number of
 * workers (processes, machines) share the queue without waiting on each other or claiming the same
 * row; `locked_until` keeps a row out of every other claim while its attempt is in flight, and
 * makes a crashed worker's claim expire on its own — the row is simply due again.
 *
 * Only deliveries of ACTIVE forwarding settings are claimed, and each goes to the forwarding URL in
 * force now (written back to the row): a pause, a disable or a new URL that commits before the
 * claim is always obeyed, whatever the row says. Held rows (no next_attempt_at) are not even read.
 *
 * Each claim counts itself (`claim_count`; recording an attempt resets it). A due row already
 * claimed MAX_UNRECORDED_CLAIMS times with no attempt recorded is marked FAILED by the same
 * statement and returned in `givenUp` rather than sent.
 *
 * Per-destination isolation: at most `perUrl` attempts are in flight to one forwarding URL, counted
 * in the table (rows leased and not yet recorded, whichever instance claimed them: `busy`). A URL
 * already at `perUrl` is skipped before the LIMIT, so a hanging receiver's backlog never fills a
 * claim; the others take at most their free places, oldest first (`ranked`, over the oldest
 * 4 × `limit` due rows, so a busy URL's backlog cannot hide the others' either). Rows of a saturated URL
 * simply stay due and are claimed as its attempts finish. Two instances claiming at the same instant
 * both read the count before either commits, so for that moment a URL can have up to `perUrl` per
 * instance; the next claim sees them all. A lease lasts until its attempt is recorded, and attempts
 * are recorded in batches some milliseconds after their answers: `answeredHere` (per URL, the calling
 * worker's attempts answered and not yet recorded) is left out of its URL's count, so a busy URL is
 * not held at its cap by requests that no longer load the receiver.
 */
export async function claim(sql: Sql, limit: number, lockMs: number, perUrl: number, now: Date, answeredHere: ReadonlyMap<string, number> = new Map()): Promise<Claim> {
  const answered = [...answeredHere];
  const rows = await sql.query<{
    given_up: boolean;
    status: string;
    last_status_code: number | null;
    last_error: string | null;
    id: string;
    deployment_id: string;
    url: string;
    attempts: number;
    cycle_start: number;
    event_id: string;
    connector: string;
    trigger: string;
    account: string;
    occurred_at: Date | string;
    payload_json: string;
    resource: unknown;
    header_key: string | null;
    header_value_encrypted: string | null;
    signing_secrets: string[] | null;
  }>(
    `with busy as (
       select l.url, greatest(l.n - coalesce(a.n, 0), 0) as in_flight from (
         select url, count(*)::int as n from delivery
         where locked_until is not null and locked_until >= $6::timestamp and status = 'PENDING'
         group by url) l
       left join unnest($7::text[], $8::int[]) as a(url, n) on a.url = l.url
     ), candidates as (
       select d.id, s.forwarding_url, d.next_attempt_at, coalesce(b.in_flight, 0) as in_flight from delivery d
       join forwarding_settings s on s.deployment_id = d.deployment_id and s.status = 'ACTIVE'
       left join busy b on b.url = s.forwarding_url
       where ${DUE_UNCLAIMED} and coalesce(b.in_flight, 0) < $5
       order by d.next_attempt_at
       limit $1 * 4
     ), ranked as (
       select id, forwarding_url, in_flight + row_number() over (partition by forwarding_url order by next_attempt_at) as place
       from candidates
     ), claimed as (
       update delivery set
         claim_count = delivery.claim_count + 1,
         locked_until = case when due.give_up then null else $6::timestamp + ($2::int * interval '1 millisecond') end,
         url = due.forwarding_url,
         status = case when due.give_up then 'FAILED'::"DeliveryStatus" else delivery.status end,
         next_attempt_at = case when due.give_up then null else delivery.next_attempt_at end,
         completed_at = case when due.give_up then $6::timestamp else delivery.completed_at end,
         last_error = case when due.give_up then $4 else delivery.last_error end,
         updated_at = case when due.give_up then $6::timestamp else delivery.updated_at end
       from (
         -- The ranked ids as one array, looked up by primary key: a join here let the planner walk the
         -- whole due backlog against the ranked rows (quadratic when its statistics lag a busy queue).
         select d.id, s.forwarding_url, d.claim_count >= $3 as give_up from delivery d
         join forwarding_settings s on s.deployment_id = d.deployment_id and s.status = 'ACTIVE'
         where d.id = any(array(select id from ranked where place <= $5)) and ${DUE_UNCLAIMED}
         order by d.next_attempt_at
         limit $1
         for update of d skip locked
       ) due
       where delivery.id = due.id
       returning delivery.id, delivery.deployment_id, delivery.url, delivery.attempts, delivery.cycle_start, delivery.event_id,
                 due.give_up as given_up, delivery.status::text as status, delivery.last_status_code, delivery.last_error
     )
     select c.id, c.deployment_id, c.url, c.attempts, c.cycle_start, c.event_id, c.given_up, c.status, c.last_status_code, c.last_error,
            e.connector, e.trigger, e.account, e.occurred_at at time zone 'UTC' as occurred_at, e.payload::text as payload_json, e.resource,
            s.header_key, s.header_value_encrypted,
            ${signingSecretsInForce("c.deployment_id", "$6")} as signing_secrets
     from claimed c
     join trigger_event e on e.id = c.event_id
     left join forwarding_settings s on s.deployment_id = c.deployment_id`,
    [limit, lockMs, MAX_UNRECORDED_CLAIMS, UNRECORDED_CLAIMS_ERROR, perUrl, now.toISOString(), answered.map(([url]) => url), answered.map(([, n]) => n)],
    "claim_due_deliveries",
  );
  const givenUp: DeliveryRow[] = rows
    .filter((row) => row.given_up)
    .map((row) => ({
      id: row.id,
      deployment_id: row.deployment_id,
      event_id: row.event_id,
      status: "FAILED" as const,
      attempts: Number(row.attempts),
      last_status_code: row.last_status_code,
      last_error: row.last_error,
      next_attempt_at: null,
    }));
  const claimed = rows.filter((row) => !row.given_up).map((row) => ({
    id: row.id,
    deploymentId: row.deployment_id,
    url: row.url,
    attempts: Number(row.attempts),
    cycleStart: Number(row.cycle_start),
    event: {
      id: row.event_id,
      connector: row.connector,
      trigger: row.trigger,
      account: row.account,
      occurredAt: new Date(row.occurred_at),
      payloadJson: row.payload_json,
      resource: row.resource as Record<string, string> | null,
    },
    headerKey: row.header_key,
    headerValueSealed: row.header_value_encrypted,
    signingSecretsSealed: row.signing_secrets ?? [],
  }));
  return { claimed, givenUp };
}
