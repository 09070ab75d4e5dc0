import { randomBytes } from "node:crypto";
import { activeSigningSecrets } from "../deployments/signingSecrets.ts";
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
  const { config, logger, sql } = services;
  const concurrency = options.concurrency ?? 32;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  // The attempt cannot outlive its timeout; the margin covers signing and recording the result.
  const lockMs = config.deliveryTimeoutMs + 5_000;
  const { dispatcher, guarded } = createDeliveryDispatcher(config);

  const inFlight = new Set<Promise<void>>();
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
      const free = concurrency - inFlight.size;
      if (free > 0) {
        const claimed = await claim(free);
        for (const delivery of claimed) track(attempt(delivery));
        // A full batch means more may be due: go again (once a slot frees up).
        if (claimed.length === free) continue;
      }
      if (running) await sleep(pollIntervalMs);
    }
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = new Date();
    let result: SendResult;
    try {
      result = await send(dispatcher, guarded, await buildRequest(delivery, startedAt), config.deliveryTimeoutMs);
    } catch (error) {
      // Could not even build the request (no signing secret, unreadable header): an attempt that failed here.
      logger.error({ err: error, deliveryId: delivery.id }, "could not prepare a delivery");
      result = { statusCode: null, error: "could not prepare the request", responseBody: null, durationMs: 0 };
    }
    try {
      await recordAttempt(delivery, startedAt, result);
    } catch (error) {
      // The lease runs out and the delivery is tried again: at-least-once.
      logger.error({ err: error, deliveryId: delivery.id }, "could not record a delivery attempt");
    }
  }

  async function buildRequest(delivery: ClaimedDelivery, at: Date) {
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
    const secrets = await activeSigningSecrets(services.db, services.box, delivery.deploymentId, at);
    const headers: Record<string, string> = {};
    if (delivery.headerKey && delivery.headerValueSealed) headers[delivery.headerKey] = services.box.open(delivery.headerValueSealed);
    Object.assign(headers, {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      ...signatureHeaders(secrets, event.id, body, at),
    });
    return { url: delivery.url, headers, body };
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
    // One statement: the attempt row and the delivery's new state commit together. Guarded by
    // status = 'PENDING' so a late attempt (its lease expired and another worker finished the
    // delivery) cannot undo that outcome.
    const rows = await sql.query<{
      id: string;
      deployment_id: string;
      event_id: string;
      status: "PENDING" | "SUCCEEDED" | "FAILED";
      attempts: number;
      last_status_code: number | null;
      last_error: string | null;
      next_attempt_at: Date | string | null;
    }>(
      `with d as (
         update delivery set
           attempts = attempts + 1,
           status = $2::text::"DeliveryStatus",
           next_attempt_at = case when $2::text = 'PENDING' then now() + ($3::int * interval '1 millisecond') else next_attempt_at end,
           locked_until = null,
           last_status_code = $4::int,
           last_error = $5::text,
           completed_at = case when $2::text = 'PENDING' then null else now() end,
           updated_at = now()
         where id = $1 and status = 'PENDING'
         returning id, deployment_id, event_id, status, attempts, last_status_code, last_error, next_attempt_at
       ), a as (
         insert into delivery_attempt (id, delivery_id, number, started_at, duration_ms, status_code, error, response_body)
         select $6, d.id, d.attempts, $7::timestamp, $8::int, $4::int, $9::text, $10::text from d
       )
       select id, deployment_id, event_id, status::text as status, attempts, last_status_code, last_error,
              case when status = 'PENDING' then next_attempt_at at time zone 'UTC' end as next_attempt_at
       from d`,
      [
        delivery.id,
        decision.status,
        decision.status === "PENDING" ? decision.delayMs : 0,
        result.statusCode,
        lastError,
        `att_${randomBytes(12).toString("hex")}`,
        startedAt.toISOString(),
        result.durationMs,
        result.error,
        result.responseBody,
      ],
    );
    const row = rows[0];
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
