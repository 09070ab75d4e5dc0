import { badInput } from "../errors.ts";
import type { Sql } from "../db/sql.ts";

/**
 * A deployment's delivery health, computed by PostgreSQL in one statement (nothing is loaded row by
 * row): the deliveries created in the last `hours` hours counted by their status now, hour by hour
 * (oldest first, the current hour last and partial), and the latency of their attempts.
 *
 * - The window starts at the top of the hour `hours - 1` hours before this one, so the totals are
 *   exactly the sum of the buckets.
 * - successRate = succeeded / (succeeded + failed), null when both are 0 (pending and cancelled
 *   deliveries have no verdict yet, or never will).
 * - p50Ms / p95Ms: how long the forwarding URL took to answer, over every attempt of those
 *   deliveries (percentile_disc: a duration that was actually observed).
 * - oldestPendingAt and queueDepth describe the deployment's whole queue, not just the window: a
 *   delivery stuck for two days is exactly what a 24-hour view must not hide.
 * - Attempts (read from delivery_attempt, by when they started, whatever the delivery's age):
 *   attemptSuccessRate = attempts answered 2xx / attempts in the window. A delivery is only FAILED
 *   once its retries run out (about a day later), so the delivery rate says 100 % while every
 *   attempt fails; the attempt rate says 0 % at once (what the console shows).
 * - failingEndpoint: the deployment's latest attempt failed. `consecutiveFailures` counts the
 *   attempts in the window since the last success; `nextAttemptAt` is when the queue tries again
 *   (null while forwarding is paused or disabled: nothing is due).
 */

/**
 * A week. A month (the bound before) made one call aggregate 31 days of deliveries and attempts,
 * seconds of the shared database's time on a busy deployment; longer views belong to /metrics.
 */
export const MAX_STATS_HOURS = 24 * 7;

export interface DeliveryStatsBucket {
  start: Date;
  succeeded: number;
  failed: number;
  pending: number;
  cancelled: number;
  p50Ms: number | null;
  p95Ms: number | null;
  attemptsSucceeded: number;
  attemptsFailed: number;
}

/** The forwarding URL's current run of failed attempts (see above). */
export interface FailingEndpoint {
  url: string | null;
  consecutiveFailures: number;
  /** The first failed attempt of the run (in the window). */
  since: Date;
  lastAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
}

export interface DeliveryStats {
  hours: number;
  succeeded: number;
  failed: number;
  pending: number;
  cancelled: number;
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  oldestPendingAt: Date | null;
  queueDepth: number;
  attempts: number;
  attemptsSucceeded: number;
  attemptsFailed: number;
  attemptSuccessRate: number | null;
  failingEndpoint: FailingEndpoint | null;
  buckets: DeliveryStatsBucket[];
}

type Row = {
  start: Date | string | null;
  succeeded: string | number;
  failed: string | number;
  pending: string | number;
  cancelled: string | number;
  p50: string | number | null;
  p95: string | number | null;
  attempts_ok: string | number;
  attempts_failed: string | number;
};

type RunRow = {
  failures: string | number;
  since: Date | string | null;
  last_at: Date | string | null;
  url: string | null;
  status_code: number | null;
  error: string | null;
};

/** The window's first hour: the top of the hour `hours - 1` hours before this one. */
const BOUNDS = `bounds as (select date_trunc('hour', now() at time zone 'UTC') - (($2::int - 1) * interval '1 hour') as first)`;

/** The deployment's attempts that started in the window (delivery_attempt is the record; the queue's statements are not read). */
const ATTEMPTS = `att as (
  select a.started_at, a.url, a.status_code, a.error, coalesce(a.status_code between 200 and 299, false) as ok,
         date_trunc('hour', a.started_at) as hour
  from delivery_attempt a join delivery d on d.id = a.delivery_id, bounds
  where d.deployment_id = $1 and a.started_at >= bounds.first)`;

export async function deliveryStats(sql: Sql, deploymentId: string, hours: number): Promise<DeliveryStats> {
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_STATS_HOURS) {
    throw badInput(`hours: must be an integer from 1 to ${MAX_STATS_HOURS}`, [{ field: "hours", message: `must be from 1 to ${MAX_STATS_HOURS}` }]);
  }
  // Buckets (start set) and the window's totals (start null) from one grouping-sets pass.
  const [rows, queue, runs] = await Promise.all([
    sql.query<Row>(
      `with ${BOUNDS}, d as (
         select d.id, d.status, date_trunc('hour', d.created_at) as hour
         from delivery d, bounds where d.deployment_id = $1 and d.created_at >= bounds.first
       ), ${ATTEMPTS}, counts as (
         select hour, count(*) filter (where status = 'SUCCEEDED') as succeeded, count(*) filter (where status = 'FAILED') as failed,
                count(*) filter (where status = 'PENDING') as pending, count(*) filter (where status = 'CANCELLED') as cancelled
         from d group by grouping sets ((hour), ())
       ), latency as (
         select d.hour, percentile_disc(0.5) within group (order by a.duration_ms) as p50,
                percentile_disc(0.95) within group (order by a.duration_ms) as p95
         from d join delivery_attempt a on a.delivery_id = d.id group by grouping sets ((d.hour), ())
       ), attempt_counts as (
         select hour, count(*) filter (where ok) as ok, count(*) filter (where not ok) as failed
         from att group by grouping sets ((hour), ())
       ), hours as (
         select generate_series(bounds.first, bounds.first + (($2::int - 1) * interval '1 hour'), interval '1 hour') as hour from bounds
         union all select null
       )
       select h.hour at time zone 'UTC' as start, coalesce(c.succeeded, 0) as succeeded, coalesce(c.failed, 0) as failed,
              coalesce(c.pending, 0) as pending, coalesce(c.cancelled, 0) as cancelled, l.p50, l.p95,
              coalesce(ac.ok, 0) as attempts_ok, coalesce(ac.failed, 0) as attempts_failed
       from hours h
       left join counts c on c.hour is not distinct from h.hour
       left join latency l on l.hour is not distinct from h.hour
       left join attempt_counts ac on ac.hour is not distinct from h.hour
       order by h.hour nulls first`,
      [deploymentId, hours],
    ),
    sql.query<{ depth: string | number; oldest: Date | string | null; next: Date | string | null }>(
      // The (deployment_id, status, created_at) index: only the queue is read.
      `select count(*) as depth, min(created_at) at time zone 'UTC' as oldest, min(next_attempt_at) at time zone 'UTC' as next
       from delivery where deployment_id = $1 and status = 'PENDING'`,
      [deploymentId],
    ),
    sql.query<RunRow>(
      // The run of failures since the window's last successful attempt, newest attempt first.
      `with ${BOUNDS}, ${ATTEMPTS}, last_ok as (select max(started_at) as at from att where ok)
       select count(*) as failures, min(started_at) at time zone 'UTC' as since, max(started_at) at time zone 'UTC' as last_at,
              (array_agg(url order by started_at desc))[1] as url,
              (array_agg(status_code order by started_at desc))[1] as status_code,
              (array_agg(error order by started_at desc))[1] as error
       from att, last_ok where last_ok.at is null or att.started_at > last_ok.at`,
      [deploymentId, hours],
    ),
  ]);
  const number = (value: string | number | null) => (value === null ? null : Number(value));
  const [total, ...perHour] = rows;
  const succeeded = Number(total.succeeded);
  const failed = Number(total.failed);
  const attemptsSucceeded = Number(total.attempts_ok);
  const attemptsFailed = Number(total.attempts_failed);
  const run = runs[0];
  const failures = Number(run?.failures ?? 0);
  return {
    hours,
    succeeded,
    failed,
    pending: Number(total.pending),
    cancelled: Number(total.cancelled),
    successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    p50Ms: number(total.p50),
    p95Ms: number(total.p95),
    oldestPendingAt: queue[0]?.oldest ? new Date(queue[0].oldest) : null,
    queueDepth: Number(queue[0]?.depth ?? 0),
    attempts: attemptsSucceeded + attemptsFailed,
    attemptsSucceeded,
    attemptsFailed,
    attemptSuccessRate: attemptsSucceeded + attemptsFailed === 0 ? null : attemptsSucceeded / (attemptsSucceeded + attemptsFailed),
    failingEndpoint:
      failures > 0 && run.since && run.last_at
        ? {
            url: run.url,
            consecutiveFailures: failures,
            since: new Date(run.since),
            lastAttemptAt: new Date(run.last_at),
            lastStatusCode: run.status_code === null ? null : Number(run.status_code),
            lastError: run.error,
            nextAttemptAt: queue[0]?.next ? new Date(queue[0].next) : null,
          }
        : null,
    buckets: perHour.map((row) => ({
      start: new Date(row.start!),
      succeeded: Number(row.succeeded),
      failed: Number(row.failed),
      pending: Number(row.pending),
      cancelled: Number(row.cancelled),
      p50Ms: number(row.p50),
      p95Ms: number(row.p95),
      attemptsSucceeded: Number(row.attempts_ok),
      attemptsFailed: Number(row.attempts_failed),
    })),
  };
}
