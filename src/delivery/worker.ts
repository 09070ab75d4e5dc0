import { randomBytes } from "node:crypto";
import type { DeliveryStatus } from "../events/messages.ts";
import { holdDeliveries } from "../forwarding/status.ts";
import type { Services } from "../services.ts";
import { type Claim, type ClaimedDelivery, claimDueDeliveries, MAX_UNRECORDED_CLAIMS } from "./claim.ts";
import { publishDeliveryUpdate } from "./publishUpdate.ts";
import { nextStep } from "./retryPolicy.ts";
import { createDeliveryDispatcher, send, type SendResult, USER_AGENT } from "./send.ts";
import { signatureHeaders } from "./sign.ts";

export interface DeliveryWorkerOptions {
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** How often the queue is looked at when nothing woke the worker. */
  pollIntervalMs?: number;
  /**
   * How long a claim keeps a delivery from every other claim (default: the delivery timeout plus
   * 5 s, so an attempt cannot outlive it). Tests shorten it to play out expired leases.
   */
  leaseMs?: number;
}

export interface DeliveryWorker {
  start(): void;
  /** Stops claiming, waits for the attempts in flight to be sent and recorded. */
  stop(): Promise<void>;
  /** Claims what is due now, sends it all, then records it all (one batch); returns how many were attempted. */
  runOnce(): Promise<number>;
  /**
   * Shutdown ran out of time: gives up the claims of attempts not yet recorded, so another instance
   * takes them at once rather than after the lease (at-least-once: one may already have been sent).
   * Returns how many were released.
   */
  release(): Promise<number>;
}

/**
 * The outbound half of forwarding: claims due deliveries, signs and POSTs them, records each
 * attempt and what comes next, then publishes the delivery's new state. No transaction is open
 * while a request is in flight — the claim is a lease (`locked_until`), so a crash at any point
 * leaves the row due again once the lease runs out: at-least-once, same `webhook-id` every time.
 */
export function createDeliveryWorker(services: Services, options: DeliveryWorkerOptions = {}): DeliveryWorker {
  const { config, logger } = services;
  const sql = services.database.workerSql;
  const concurrency = options.concurrency ?? 64;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  // The attempt cannot outlive its timeout; the margin covers signing and recording the result.
  const lockMs = options.leaseMs ?? config.deliveryTimeoutMs + 5_000;
  const { dispatcher, guarded } = createDeliveryDispatcher(config);

  // Opened secrets by their sealed text (signing secrets, operator header values). The sealed text
  // names one value forever, and the claim returns only the secrets in force, so this cannot go
  // stale; it only saves an AES-GCM open per attempt. Bounded: cleared when full.
  const opened = new Map<string, string>();
  const open = (sealed: string) => {
    let plain = opened.get(sealed);
    if (plain === undefined) {
      plain = services.box.open(sealed);
      if (opened.size >= 1_000) opened.clear();
      opened.set(sealed, plain);
    }
    return plain;
  };

  /** Attempts claimed and not yet recorded (stop() waits for them). */
  const inFlight = new Set<Promise<void>>();
  /** Their deliveries' ids (release() gives up their claims). */
  const claimedIds = new Set<string>();
  /** Of those, the ones whose HTTP request is in flight: at most `concurrency`. */
  let sending = 0;
  let deep = false;
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let unsubscribe: (() => void) | undefined;

  function track(work: Promise<void>) {
    inFlight.add(work);
    void work.finally(() => {
      inFlight.delete(work);
      wake();
    });
  }

  // A wake-up that arrives while the loop is busy is remembered, so the next sleep is skipped.
  let woken = false;
  function wake() {
    woken = true;
    wakeUp?.();
  }

  function sleep(ms: number): Promise<void> {
    if (woken) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function claim(limit: number): Promise<ClaimedDelivery[]> {
    try {
      return settleGivenUp(await claimDueDeliveries(sql, limit, lockMs));
    } catch (error) {
      // An outage is logged once by databaseOutage (src/db/outage.ts), not on every poll.
      if (!services.databaseOutage.noted(error)) logger.error({ err: error }, "could not claim deliveries");
      return [];
    }
  }

  /** Reports the deliveries the claim stopped instead of sending (MAX_UNRECORDED_CLAIMS); returns the rest. */
  function settleGivenUp({ claimed, givenUp }: Claim): ClaimedDelivery[] {
    for (const row of givenUp) {
      services.operationsMetrics.deliveryGivenUp();
      logger.warn(
        { deliveryId: row.id, eventId: row.event_id, deploymentId: row.deployment_id, claims: MAX_UNRECORDED_CLAIMS, outcome: "failed" },
        "delivery stopped: sent repeatedly but no attempt could be recorded",
      );
      publishDeliveryUpdate(services, row);
    }
    return claimed;
  }

  async function run() {
    while (running) {
      // A slot is an HTTP request in flight; recording its result (batched) does not hold one, but
      // the attempts still waiting to be recorded are bounded too.
      const free = Math.min(concurrency - sending, 4 * concurrency - inFlight.size);
      // A deep queue (the last claim came back full) is claimed in big batches — one round trip
      // per half the slots rather than one per slot freed; a shallow one as soon as anything is due.
      if (free >= (deep ? Math.ceil(concurrency / 2) : 1)) {
        const claimed = await claim(free);
        for (const delivery of claimed) {
          claimedIds.add(delivery.id);
          track(attempt(delivery).finally(() => claimedIds.delete(delivery.id)));
        }
        deep = claimed.length === free;
        // A full batch means more may be due: go again (once enough slots free up).
        if (deep) continue;
      }
      if (running) await sleep(pollIntervalMs);
    }
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    await record(await sendOne(delivery));
  }

  type Sent = { delivery: ClaimedDelivery; startedAt: Date; result: SendResult };

  async function sendOne(delivery: ClaimedDelivery): Promise<Sent> {
    const startedAt = new Date();
    let result: SendResult;
    sending++;
    try {
      result = await send(dispatcher, guarded, buildRequest(delivery, startedAt), config.deliveryTimeoutMs);
    } catch (error) {
      // Could not even build the request (no signing secret, unreadable header): an attempt that failed here.
      logger.error({ err: error, deliveryId: delivery.id }, "could not prepare a delivery");
      result = { statusCode: null, error: "could not prepare the request", responseBody: null, durationMs: 0 };
    } finally {
      sending--;
      wake();
    }
    return { delivery, startedAt, result };
  }

  async function record({ delivery, startedAt, result }: Sent): Promise<void> {
    try {
      await recordAttempt(delivery, startedAt, result);
    } catch (error) {
      // The lease runs out and the delivery is tried again (at-least-once), at most MAX_UNRECORDED_CLAIMS times.
      logger.error({ err: error, deliveryId: delivery.id }, "could not record a delivery attempt");
    }
  }

  function buildRequest(delivery: ClaimedDelivery, at: Date) {
    const { event } = delivery;
    // Exactly SPEC §3, in this order.
    const body = JSON.stringify({
      id: event.id,
      type: `${event.connector}.${event.trigger}`,
      connector: event.connector,
      trigger: event.trigger,
      account: event.account,
      deploymentId: delivery.deploymentId,
      occurredAt: event.occurredAt.toISOString(),
      data: event.payload,
    });
    // Read by the claim statement: the secrets in force, current first.
    const secrets = delivery.signingSecretsSealed.map(open);
    const headers: Record<string, string> = {};
    if (delivery.headerKey && delivery.headerValueSealed) headers[delivery.headerKey] = open(delivery.headerValueSealed);
    Object.assign(headers, {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signatureHeaders(secrets, event.id, body, at),
    });
    return { url: delivery.url, headers, body };
  }

  type AttemptToRecord = {
    id: string;
    status: "PENDING" | "SUCCEEDED" | "FAILED";
    delayMs: number;
    statusCode: number | null;
    lastError: string | null;
    attemptId: string;
    url: string;
    startedAt: string;
    durationMs: number;
    error: string | null;
    responseBody: string | null;
  };
  type RecordedRow = {
    id: string;
    deployment_id: string;
    event_id: string;
    status: DeliveryStatus;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    next_attempt_at: Date | string | null;
    /** Set when this batch's failures turned the deployment's forwarding DISABLED. */
    disabled_reason: string | null;
  };

  // Group commit: at most one recording statement in flight; the attempts that finish meanwhile go
  // together in the next one. Idle, an attempt is recorded at once (a batch of one); busy, one
  // round trip records many. Each attempt still waits for its own row to be committed.
  const toRecord: Array<{ attempt: AttemptToRecord; resolve: (row: RecordedRow | undefined) => void; reject: (error: unknown) => void }> = [];
  let recording = false;
  function recordBatched(attempt: AttemptToRecord): Promise<RecordedRow | undefined> {
    return new Promise((resolve, reject) => {
      toRecord.push({ attempt, resolve, reject });
      if (!recording) void flushRecords();
    });
  }
  async function flushRecords() {
    recording = true;
    // Attempts that finish in the same turn of the event loop go in the same statement.
    await Promise.resolve();
    while (toRecord.length > 0) {
      // Sorted by id: two statements touching the same rows lock them in the same order.
      const batch = toRecord.splice(0, 200).sort((a, b) => (a.attempt.id < b.attempt.id ? -1 : 1));
      try {
        const rows = await recordAttempts(batch.map((entry) => entry.attempt));
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const entry of batch) entry.resolve(byId.get(entry.attempt.id));
      } catch (error) {
        if (batch.length === 1) {
          batch[0].reject(error);
          continue;
        }
        // One row the database refuses must not cost the others their record (and their receivers
        // a repeat every lease): the batch is recorded again one attempt per statement, so only the
        // refused row fails — and that one is bounded by MAX_UNRECORDED_CLAIMS.
        logger.warn({ err: error, attempts: batch.length }, "a batch of delivery attempts could not be recorded; recording them one by one");
        for (const entry of batch) {
          try {
            const [row] = await recordAttempts([entry.attempt]);
            entry.resolve(row);
          } catch (single) {
            entry.reject(single);
          }
        }
      }
    }
    recording = false;
  }

  /**
   * One statement for a batch: each attempt row and its delivery's new state commit together.
   *
   * - Only a PENDING or CANCELLED delivery takes the attempt, so a late attempt (its lease expired
   *   and another worker finished the delivery) cannot undo that outcome. A delivery cancelled while
   *   its attempt was in flight keeps the attempt in its log and stays CANCELLED.
   * - A delivery re-targeted while in flight (its url is no longer the one this attempt went to) is
   *   due again at once; one whose forwarding is no longer ACTIVE (paused or disabled meanwhile) is
   *   held (no next_attempt_at) instead of scheduled.
   * - The settings' failure bookkeeping, for FORWARDING_DISABLE_AFTER: a success ends the run of
   *   failures, a failure starts one, and a failure when the run is old enough disables forwarding.
   *   The settings row is written only when one of those changes (or, on success, once a minute for
   *   last_success_at), so a healthy endpoint costs no extra write.
   */
  function recordAttempts(attempts: AttemptToRecord[]) {
    const column = <K extends keyof AttemptToRecord>(key: K) => attempts.map((attempt) => attempt[key]);
    return sql.query<RecordedRow>(
      `with i as (
         select * from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::timestamp[], $8::int[], $9::text[], $10::text[], $11::text[])
           as t(id, status, delay_ms, status_code, last_error, attempt_id, started_at, duration_ms, error, response_body, url)
       ), d as (
         update delivery set
           attempts = delivery.attempts + 1,
           claim_count = 0,
           status = case when delivery.status = 'CANCELLED' then delivery.status else i.status::"DeliveryStatus" end,
           next_attempt_at = case
             when delivery.status = 'CANCELLED' or i.status <> 'PENDING' then null
             when delivery.url is distinct from i.url then now()
             when (select s.status from forwarding_settings s where s.deployment_id = delivery.deployment_id) is distinct from 'ACTIVE' then null
             else now() + (i.delay_ms * interval '1 millisecond') end,
           locked_until = null,
           last_status_code = i.status_code,
           last_error = i.last_error,
           completed_at = case when delivery.status = 'CANCELLED' then delivery.completed_at when i.status = 'PENDING' then null else now() end,
           updated_at = now()
         from i
         where delivery.id = i.id and delivery.status in ('PENDING', 'CANCELLED')
         returning delivery.id, delivery.deployment_id, delivery.event_id, delivery.status, delivery.attempts, delivery.last_status_code,
                   delivery.last_error, delivery.next_attempt_at,
                   i.attempt_id, i.url, i.started_at, i.duration_ms, i.status_code as attempt_status_code, i.error, i.response_body
       ), a as (
         insert into delivery_attempt (id, delivery_id, number, url, started_at, duration_ms, status_code, error, response_body)
         select d.attempt_id, d.id, d.attempts, d.url, d.started_at, d.duration_ms, d.attempt_status_code, d.error, d.response_body from d
       ), f as (
         select deployment_id, url, bool_or(attempt_status_code between 200 and 299) as ok,
                min(started_at) filter (where attempt_status_code is null or attempt_status_code not between 200 and 299) as first_failure
         from d group by deployment_id, url
       ), disabling as (
         select s.deployment_id, f.ok, f.first_failure,
                not f.ok and s.status = 'ACTIVE'
                  and coalesce(s.failing_since, f.first_failure) <= now() - ($12::bigint * interval '1 millisecond') as disable
         from forwarding_settings s join f on f.deployment_id = s.deployment_id and f.url = s.forwarding_url
       ), s as (
         update forwarding_settings set
           failing_since = case when x.ok then null else coalesce(forwarding_settings.failing_since, x.first_failure) end,
           last_success_at = case when x.ok then now() else forwarding_settings.last_success_at end,
           status = case when x.disable then 'DISABLED'::"ForwardingStatus" else forwarding_settings.status end,
           status_changed_at = case when x.disable then now() else forwarding_settings.status_changed_at end,
           disabled_reason = case when x.disable
             then 'Every delivery attempt to ' || forwarding_settings.forwarding_url || ' has failed since '
                  || to_char(coalesce(forwarding_settings.failing_since, x.first_failure), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                  || ' with no success in between. Deliveries are held, none is dropped: fix the endpoint, then resume forwarding.'
             else forwarding_settings.disabled_reason end
         from disabling x
         where forwarding_settings.deployment_id = x.deployment_id
           and (x.disable
             or (x.ok and (forwarding_settings.failing_since is not null or forwarding_settings.last_success_at is null
                           or forwarding_settings.last_success_at < now() - interval '1 minute'))
             or (not x.ok and forwarding_settings.failing_since is null))
         returning forwarding_settings.deployment_id, case when x.disable then forwarding_settings.disabled_reason end as disabled_reason
       )
       select d.id, d.deployment_id, d.event_id, d.status::text as status, d.attempts, d.last_status_code, d.last_error,
              case when d.status = 'PENDING' then d.next_attempt_at at time zone 'UTC' end as next_attempt_at,
              (select s.disabled_reason from s where s.deployment_id = d.deployment_id) as disabled_reason
       from d`,
      [
        column("id"),
        column("status"),
        column("delayMs"),
        column("statusCode"),
        column("lastError"),
        column("attemptId"),
        column("startedAt"),
        column("durationMs"),
        column("error"),
        column("responseBody"),
        column("url"),
        config.forwardingDisableAfterMs,
      ],
      "record_delivery_attempts",
    );
  }

  async function recordAttempt(delivery: ClaimedDelivery, startedAt: Date, result: SendResult) {
    const number = delivery.attempts + 1;
    const decision = nextStep(
      number - delivery.cycleStart,
      result.statusCode !== null ? { statusCode: result.statusCode } : { error: result.error ?? "no answer" },
      config.deliveryRetryScheduleMs,
    );
    const lastError =
      result.error ??
      (decision.status === "SUCCEEDED" ? null : `HTTP ${result.statusCode}${decision.status === "FAILED" ? `; ${decision.reason}` : ""}`);
    const row = await recordBatched({
      id: delivery.id,
      status: decision.status,
      delayMs: decision.status === "PENDING" ? decision.delayMs : 0,
      statusCode: result.statusCode,
      lastError,
      attemptId: `att_${randomBytes(12).toString("hex")}`,
      url: delivery.url,
      startedAt: startedAt.toISOString(),
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
    });
    if (!row) return;
    if (row.attempts !== number) {
      logger.warn({ deliveryId: delivery.id, expected: number, recorded: row.attempts }, "a delivery was attempted by two workers");
    }
    const outcome = row.status === "CANCELLED" ? "cancelled" : row.status === "PENDING" ? "retrying" : row.status === "SUCCEEDED" ? "succeeded" : "failed";
    services.operationsMetrics.deliveryAttempted(outcome === "cancelled" ? undefined : outcome, result.durationMs);
    // Ids, status and timing only: never the URL (it may carry a token), a header or a body.
    logger.info(
      {
        deliveryId: row.id,
        eventId: row.event_id,
        deploymentId: row.deployment_id,
        attempt: number,
        outcome,
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        ...(result.error ? { error: result.error } : {}),
      },
      "delivery attempt",
    );
    if (row.disabled_reason) {
      logger.warn({ deploymentId: row.deployment_id }, "forwarding disabled: every attempt failed for FORWARDING_DISABLE_AFTER");
      await holdDeliveries(services, row.deployment_id, sql).catch((error) => logger.warn({ err: error }, "could not hold deliveries"));
    }
    publishDeliveryUpdate(services, row);
  }

  return {
    start() {
      if (running) return;
      running = true;
      unsubscribe = services.deliverySignal.subscribe(wake);
      loop = run().catch((error) => logger.error({ err: error }, "the delivery worker stopped unexpectedly"));
    },
    async stop() {
      running = false;
      unsubscribe?.();
      wake();
      await loop;
      await Promise.allSettled([...inFlight]);
      await dispatcher.close().catch(() => {});
    },
    async release() {
      const ids = [...claimedIds];
      if (ids.length === 0) return 0;
      await sql.query(`update delivery set locked_until = null where id = any($1::text[]) and status = 'PENDING'`, [ids]);
      return ids.length;
    },
    async runOnce() {
      const claimed = settleGivenUp(await claimDueDeliveries(sql, concurrency, lockMs));
      // Sent together, then recorded together: one statement for the round, as a busy worker's
      // group commit would record them.
      const sent = await Promise.all(claimed.map(sendOne));
      await Promise.all(sent.map(record));
      return claimed.length;
    },
  };
}
