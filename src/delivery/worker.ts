import { randomBytes } from "node:crypto";
import type { DeliveryUpdateMessage } from "../events/messages.ts";
import type { Services } from "../services.ts";
import { type ClaimedDelivery, claimDueDeliveries } from "./claim.ts";
import { nextStep } from "./retryPolicy.ts";
import { createDeliveryDispatcher, send, type SendResult, USER_AGENT } from "./send.ts";
import { signatureHeaders } from "./sign.ts";

export interface DeliveryWorkerOptions {
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** How often the queue is looked at when nothing woke the worker. */
  pollIntervalMs?: number;
}

export interface DeliveryWorker {
  start(): void;
  /** Stops claiming, waits for the attempts in flight to be sent and recorded. */
  stop(): Promise<void>;
  /** Claims what is due now, sends it all, records it; returns how many were attempted. */
  runOnce(): Promise<number>;
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
  const lockMs = config.deliveryTimeoutMs + 5_000;
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
      return await claimDueDeliveries(sql, limit, lockMs);
    } catch (error) {
      logger.error({ err: error }, "could not claim deliveries");
      return [];
    }
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
        for (const delivery of claimed) track(attempt(delivery));
        deep = claimed.length === free;
        // A full batch means more may be due: go again (once enough slots free up).
        if (deep) continue;
      }
      if (running) await sleep(pollIntervalMs);
    }
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
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
    try {
      await recordAttempt(delivery, startedAt, result);
    } catch (error) {
      // The lease runs out and the delivery is tried again: at-least-once.
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
    startedAt: string;
    durationMs: number;
    error: string | null;
    responseBody: string | null;
  };
  type RecordedRow = {
    id: string;
    deployment_id: string;
    event_id: string;
    status: "PENDING" | "SUCCEEDED" | "FAILED";
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    next_attempt_at: Date | string | null;
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
    while (toRecord.length > 0) {
      // Sorted by id: two statements touching the same rows lock them in the same order.
      const batch = toRecord.splice(0, 200).sort((a, b) => (a.attempt.id < b.attempt.id ? -1 : 1));
      try {
        const rows = await recordAttempts(batch.map((entry) => entry.attempt));
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const entry of batch) entry.resolve(byId.get(entry.attempt.id));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    recording = false;
  }

  /**
   * One statement for a batch: each attempt row and its delivery's new state commit together.
   * Guarded by status = 'PENDING' so a late attempt (its lease expired and another worker finished
   * the delivery) cannot undo that outcome.
   */
  function recordAttempts(attempts: AttemptToRecord[]) {
    const column = <K extends keyof AttemptToRecord>(key: K) => attempts.map((attempt) => attempt[key]);
    return sql.query<RecordedRow>(
      `with i as (
         select * from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::timestamp[], $8::int[], $9::text[], $10::text[])
           as t(id, status, delay_ms, status_code, last_error, attempt_id, started_at, duration_ms, error, response_body)
       ), d as (
         update delivery set
           attempts = delivery.attempts + 1,
           status = i.status::"DeliveryStatus",
           next_attempt_at = case when i.status = 'PENDING' then now() + (i.delay_ms * interval '1 millisecond') else delivery.next_attempt_at end,
           locked_until = null,
           last_status_code = i.status_code,
           last_error = i.last_error,
           completed_at = case when i.status = 'PENDING' then null else now() end,
           updated_at = now()
         from i
         where delivery.id = i.id and delivery.status = 'PENDING'
         returning delivery.id, delivery.deployment_id, delivery.event_id, delivery.status, delivery.attempts, delivery.last_status_code,
                   delivery.last_error, delivery.next_attempt_at,
                   i.attempt_id, i.started_at, i.duration_ms, i.status_code as attempt_status_code, i.error, i.response_body
       ), a as (
         insert into delivery_attempt (id, delivery_id, number, started_at, duration_ms, status_code, error, response_body)
         select d.attempt_id, d.id, d.attempts, d.started_at, d.duration_ms, d.attempt_status_code, d.error, d.response_body from d
       )
       select id, deployment_id, event_id, status::text as status, attempts, last_status_code, last_error,
              case when status = 'PENDING' then next_attempt_at at time zone 'UTC' end as next_attempt_at
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
      ],
      "record_delivery_attempts",
    );
  }

  async function recordAttempt(delivery: ClaimedDelivery, startedAt: Date, result: SendResult) {
    const number = delivery.attempts + 1;
    const decision = nextStep(
      number,
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
      startedAt: startedAt.toISOString(),
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
    });
    if (!row) return;
    if (row.attempts !== number) {
      logger.warn({ deliveryId: delivery.id, expected: number, recorded: row.attempts }, "a delivery was attempted by two workers");
    }
    const message: DeliveryUpdateMessage = {
      id: row.id,
      deploymentId: row.deployment_id,
      eventId: row.event_id,
      status: row.status,
      attempts: Number(row.attempts),
      lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
      lastError: row.last_error,
      nextAttemptAt: row.next_attempt_at === null ? null : new Date(row.next_attempt_at).toISOString(),
    };
    try {
      services.events.publish("deliveryUpdate", row.deployment_id, message);
    } catch (error) {
      logger.warn({ err: error }, "could not publish a delivery update");
    }
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
    async runOnce() {
      const claimed = await claimDueDeliveries(sql, concurrency, lockMs);
      await Promise.all(claimed.map(attempt));
      return claimed.length;
    },
  };
}
