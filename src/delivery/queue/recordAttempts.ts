import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import { isDatabaseOutOfService } from "../../db/errors.ts";
import type { Sql } from "../../db/sql.ts";
import { DISABLED_REASON, disables, settingsChange } from "../disablePolicy.ts";
import { FORWARDING_ACTIVE, HOLD } from "./fragments.ts";
import type { DeliveryRow } from "./row.ts";

/** One finished attempt, with what the retry policy decided comes next. */
export interface AttemptToRecord {
  id: string;
  status: "PENDING" | "SUCCEEDED" | "FAILED";
  /** When status is PENDING: how long until the next attempt. */
  delayMs: number;
  statusCode: number | null;
  lastError: string | null;
  url: string;
  startedAt: string;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  /** What a 429 or 503's Retry-After asked for, in seconds; null without one. */
  retryAfterSeconds: number | null;
}

/**
 * recordAttempts: in flight (claimed PENDING) → PENDING (due after the delay, due now when
 * re-targeted meanwhile, held when forwarding stopped meanwhile), SUCCEEDED or FAILED. One statement
 * for a batch: each attempt row and its delivery's new state commit together.
 *
 * - Only a PENDING or CANCELLED delivery takes the attempt, so a late attempt (its lease expired
 *   and another worker finished the delivery) cannot undo that outcome. A delivery cancelled while
 *   its attempt was in flight keeps the attempt in its log and stays CANCELLED.
 * - Recording resets claim_count (the claims' cap, claim.ts) and ends the lease.
 * - The settings' failure bookkeeping of the disable policy (../disablePolicy.ts).
 */
export function recordAttempts(sql: Sql, attempts: readonly AttemptToRecord[], disableAfterMs: number, now: Date) {
  return sql.query<DeliveryRow>(
    `with i as (
       -- One JSON document for the batch ($1), each column named where it is read (as the accepting
       -- statement's): a receiver's answer is mostly quotes, which array literals escape one by one.
       select * from json_to_recordset($1::json) as t(
         id text, status text, delay_ms int, status_code int, last_error text, started_at timestamp, duration_ms int,
         error text, response_body text, url text, retry_after_seconds int)
     ), d as (
       update delivery set
         attempts = delivery.attempts + 1,
         claim_count = 0,
         status = case when delivery.status = 'CANCELLED' then delivery.status else i.status::"DeliveryStatus" end,
         next_attempt_at = case
           when delivery.status = 'CANCELLED' or i.status <> 'PENDING' then null
           when delivery.url is distinct from i.url then $3::timestamp
           when not ${FORWARDING_ACTIVE} then ${HOLD}
           else $3::timestamp + (i.delay_ms * interval '1 millisecond') end,
         locked_until = null,
         last_status_code = i.status_code,
         last_error = i.last_error,
         completed_at = case when delivery.status = 'CANCELLED' then delivery.completed_at when i.status = 'PENDING' then null else $3::timestamp end,
         updated_at = $3::timestamp
       from i
       -- The batch's ids as one array, looked up by primary key: joined only, a plan cached while the
       -- table was small read all of it (the document's rows are estimated at 100, a hash join's worth).
       -- PENDING or CANCELLED, said as "neither SUCCEEDED nor FAILED" so that no status index can serve
       -- it: as "in (PENDING, CANCELLED)" the planner took it from one and read every PENDING entry not
       -- yet vacuumed (95,000 of them, 3,200 pages, in one benchmark round) instead of looking the
       -- batch's ids up by primary key (test/delivery/cachedPlans.test.ts).
       where delivery.id = any(array(select id from i)) and delivery.id = i.id and delivery.status not in ('SUCCEEDED', 'FAILED')
       returning delivery.id, delivery.deployment_id, delivery.event_id, delivery.status, delivery.attempts, delivery.last_status_code,
                 delivery.last_error, delivery.next_attempt_at,
                 i.url, i.started_at, i.duration_ms, i.status_code as attempt_status_code, i.error, i.response_body,
                 i.retry_after_seconds
     ), a as (
       insert into delivery_attempt (delivery_id, number, url, started_at, duration_ms, status_code, error, response_body, retry_after_seconds)
       select d.id, d.attempts, d.url, d.started_at, d.duration_ms, d.attempt_status_code, d.error, d.response_body,
              d.retry_after_seconds from d
     ), f as (
       select deployment_id, url, bool_or(attempt_status_code between 200 and 299) as ok,
              min(started_at) filter (where attempt_status_code is null or attempt_status_code not between 200 and 299) as first_failure
       from d group by deployment_id, url
     ), disabling as (
       select s.deployment_id, f.ok, f.first_failure, ${disables("$3", "$2")} as disable
       from forwarding_settings s join f on f.deployment_id = s.deployment_id and f.url = s.forwarding_url
     ), s as (
       update forwarding_settings set
         failing_since = case when x.ok then null else coalesce(forwarding_settings.failing_since, x.first_failure) end,
         last_success_at = case when x.ok then $3::timestamp else forwarding_settings.last_success_at end,
         status = case when x.disable then 'DISABLED'::"ForwardingStatus" else forwarding_settings.status end,
         status_changed_at = case when x.disable then $3::timestamp else forwarding_settings.status_changed_at end,
         disabled_reason = case when x.disable then ${DISABLED_REASON} else forwarding_settings.disabled_reason end
       from disabling x
       where forwarding_settings.deployment_id = x.deployment_id and ${settingsChange("$3")}
       returning forwarding_settings.deployment_id, case when x.disable then forwarding_settings.disabled_reason end as disabled_reason
     )
     select d.id, d.deployment_id, d.event_id, d.status::text as status, d.attempts, d.last_status_code, d.last_error,
            case when d.status = 'PENDING' then d.next_attempt_at at time zone 'UTC' end as next_attempt_at,
            (select s.disabled_reason from s where s.deployment_id = d.deployment_id) as disabled_reason
     from d`,
    [attemptsDocument(attempts), disableAfterMs, now.toISOString()],
    "record_delivery_attempts",
  );
}

/** The batch as recordAttempts' one JSON document: a row per attempt, its columns named as the statement reads them. */
function attemptsDocument(attempts: readonly AttemptToRecord[]): string {
  return JSON.stringify(
    attempts.map((attempt) => ({
      id: attempt.id,
      status: attempt.status,
      delay_ms: attempt.delayMs,
      status_code: attempt.statusCode,
      last_error: attempt.lastError,
      started_at: attempt.startedAt,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      response_body: attempt.responseBody,
      url: attempt.url,
      retry_after_seconds: attempt.retryAfterSeconds,
    })),
  );
}

/**
 * The least time between the starts of two recording statements. A statement costs PostgreSQL about a
 * millisecond whatever its size, and at a moderate rate, where one finished long before the next
 * attempt, each carried one to three attempts: 20 ms apart, one instance at 1,200 events/s needed
 * 0.17 transactions an event instead of 0.27 and a quarter less of PostgreSQL's CPU
 * (docs/benchmarks.md). An attempt's outcome is stored up to this much later; its request is not
 * delayed, and the claim leaves such answered attempts out of a URL's count (claim.ts).
 */
export const RECORDING_SPACING_MS = 20;

/**
 * Group commit over recordAttempts: at most one recording statement in flight, and the next no sooner
 * than RECORDING_SPACING_MS after it began; the attempts that finish meanwhile go together in the next
 * one. Idle, an attempt is recorded at once (a batch of one); busy, one round trip records many. Each
 * attempt still waits for its own row to be committed.
 *
 * A batch the database refuses is recorded again one attempt per statement, so only the refused row
 * fails — and that one is bounded by MAX_UNRECORDED_CLAIMS (claim.ts). When the database is down or
 * its disk full, every attempt in the batch fails at once, as the enqueuer's events do: their leases run out.
 */
export function createAttemptRecorder(sql: Sql, logger: Logger, clock: Clock, disableAfterMs: number) {
  const toRecord: Array<{ attempt: AttemptToRecord; resolve: (row: DeliveryRow | undefined) => void; reject: (error: unknown) => void }> = [];
  let recording = false;
  /** When the last statement began (performance.now(): pacing, not the queue's time, which tests move). */
  let lastStartedAt = -Infinity;

  async function flush() {
    recording = true;
    // Attempts that finish in the same turn of the event loop go in the same statement.
    await Promise.resolve();
    while (toRecord.length > 0) {
      const wait = lastStartedAt + RECORDING_SPACING_MS - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastStartedAt = performance.now();
      // Sorted by id: two statements touching the same rows lock them in the same order.
      const batch = toRecord.splice(0, 200).sort((a, b) => (a.attempt.id < b.attempt.id ? -1 : 1));
      try {
        const rows = await recordAttempts(sql, batch.map((entry) => entry.attempt), disableAfterMs, clock.now());
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const entry of batch) entry.resolve(byId.get(entry.attempt.id));
      } catch (error) {
        if (batch.length === 1 || isDatabaseOutOfService(error)) {
          for (const entry of batch) entry.reject(error);
          continue;
        }
        logger.warn({ err: error, attempts: batch.length }, "a batch of delivery attempts could not be recorded; recording them one by one");
        for (const entry of batch) {
          try {
            const [row] = await recordAttempts(sql, [entry.attempt], disableAfterMs, clock.now());
            entry.resolve(row);
          } catch (single) {
            entry.reject(single);
          }
        }
      }
    }
    recording = false;
  }

  /** Records one attempt (batched with others finishing meanwhile); undefined when the delivery took none. */
  return function record(attempt: AttemptToRecord): Promise<DeliveryRow | undefined> {
    return new Promise((resolve, reject) => {
      toRecord.push({ attempt, resolve, reject });
      if (!recording) void flush();
    });
  };
}
