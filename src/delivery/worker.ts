import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import { buildForwardedRequest, forwardedBody } from "./forwardedRequest.ts";
import type { OperationsMetrics } from "./metrics.ts";
import type { ClaimedDelivery, DeliveryQueue } from "./queue/index.ts";
import type { Reservation } from "./queue/enqueue.ts";
import { nextStep, parseRetryAfter } from "./retryPolicy.ts";
import { createDeliveryAgent, send, type SendResult, USER_AGENT } from "./send.ts";
import type { WakeSignal } from "../events/wakeSignal.ts";
import type { LocalHandoff } from "./handoff.ts";
import type { Undici } from "../net/undici.ts";

/**
 * The least time between two claims that only a freed slot prompted. Every attempt that ends frees a
 * slot, and with the accepting statement handing new deliveries straight to the worker, a claim then
 * almost always finds nothing: at the maximum rate each worker kept one claim in flight all the time
 * (4,000–5,600 a 10 s round for two instances), and each read more of the queue's dead index entries
 * the longer autovacuum had not come (docs/benchmarks.md). A row held back by its URL's cap, which
 * only such a claim picks up, waits at most this much longer.
 */
export const CLAIM_SPACING_MS = 10;

/**
 * ... and at least this many times as long as the last claim that found nothing took. Such a claim
 * reads the queue's dead index entries, so it grows from a fraction of a millisecond to 2–3 ms
 * between autovacuum's passes (docs/benchmarks.md); spaced by its own cost, claims that find nothing
 * keep to about a twentieth of the worker's time however long they take.
 */
export const CLAIM_COST_SPACING = 20;

/** What the worker needs: the queue it works (over the worker's own database pool) and a clock. */
export interface DeliveryWorkerDeps {
  queue: DeliveryQueue;
  clock: Clock;
  config: Config;
  logger: Logger;
  box: SecretBox;
  metrics: OperationsMetrics;
  signal: WakeSignal;
  databaseOutage: DatabaseOutage;
  /** Where this worker offers its free slots to the accepting statement (handoff.ts), while it runs. */
  handoff?: LocalHandoff;
}

export interface DeliveryWorkerOptions {
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** How often the queue is looked at when nothing woke the worker. */
  pollIntervalMs?: number;
  /**
   * The least time between two claims prompted only by a slot freeing up (an attempt ended); a wake
   * signal (work queued here unleased) or a full claim claims at once.
   */
  claimSpacingMs?: number;
  /**
   * How long a claim keeps a delivery from every other claim (default: the delivery timeout plus
   * 5 s, so an attempt cannot outlive it). Tests shorten it to play out expired leases.
   */
  leaseMs?: number;
  /** How undici is loaded for the worker's requests (../net/undici.ts); a test hands in one that fails. */
  loadUndici?: () => Promise<Undici>;
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
 * The outbound half of forwarding, only its loop: claims due deliveries (queue.claim), signs and
 * POSTs them, records each attempt and what comes next (queue.recordAttempt), then publishes the
 * delivery's new state. The statements and the states they move between are in queue/index.ts.
 * No transaction is open while a request is in flight — the claim is a lease (`locked_until`), so
 * a crash at any point leaves the row due again once the lease runs out: at-least-once, same
 * `webhook-id` every time.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps, options: DeliveryWorkerOptions = {}): DeliveryWorker {
  const { queue, clock, config, logger } = deps;
  const concurrency = options.concurrency ?? 256;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const claimSpacingMs = options.claimSpacingMs ?? CLAIM_SPACING_MS;
  // The attempt cannot outlive its timeout; the margin covers signing and recording the result.
  const lockMs = options.leaseMs ?? config.deliveryTimeoutMs + 5_000;
  // One destination's share: DELIVERY_MAX_IN_FLIGHT_PER_URL, and never more than half this worker's
  // slots, so a receiver that hangs leaves at least half of them to everyone else. The claim counts
  // it across instances (queue/claim.ts), so it bounds this worker's attempts to the URL too.
  const perUrl = Math.max(1, Math.min(config.deliveryMaxInFlightPerUrl, Math.floor(concurrency / 2)));
  const { agent, guarded } = createDeliveryAgent(config, options.loadUndici);

  // Opened secrets by their sealed text (signing secrets, operator header values). The sealed text
  // names one value forever, and the claim returns only the secrets in force, so this cannot go
  // stale; it only saves an AES-GCM open per attempt. Bounded: cleared when full.
  const opened = new Map<string, string>();
  const open = (sealed: string) => {
    let plain = opened.get(sealed);
    if (plain === undefined) {
      plain = deps.box.open(sealed);
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
  /** Slots reserved by a batch of inbound events being recorded (handoff.ts): not claimed meanwhile. */
  let reserved = 0;
  /**
   * This worker's requests in flight per URL (claimed or handed over, until the receiver answered or
   * the timeout), for the handoff's per-URL share. An attempt being recorded no longer loads the
   * receiver, so it does not hold the URL's share: at the maximum rate recording took as long as
   * sending, and counting it left the handoff a third of a busy URL's deliveries, the rest waiting
   * for claims (docs/decisions.md, "Delivery isolation").
   */
  const perUrlInFlight = new Map<string, number>();
  /**
   * This worker's attempts answered and not yet recorded, per URL. Their deliveries are still leased
   * in the table (`locked_until`, until the attempt is recorded), so the claim, which counts a URL's
   * leased rows for its cap, is told to leave these out: attempts are recorded in batches some
   * milliseconds apart (queue/recordAttempts.ts), and counted, they held a busy URL at its cap.
   */
  const answeredUnrecorded = new Map<string, number>();
  let detach: (() => void) | undefined;
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
  /** The wake signal came (work queued here unleased) since the last claim began: claim without waiting. */
  let signalled = true;
  /** When the last claim began (performance.now(): pacing, not the queue's time, which tests move). */
  let lastClaimAt = -Infinity;
  /** How long the last claim took if it found nothing, else 0 (ms). */
  let emptyClaimMs = 0;

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
      return (await queue.claim(limit, lockMs, perUrl, answeredUnrecorded)).claimed;
    } catch (error) {
      // An outage is logged once by databaseOutage (src/db/outage.ts), not on every poll.
      if (!deps.databaseOutage.noted(error)) logger.error({ err: error }, "could not claim deliveries");
      return [];
    }
  }

  async function run() {
    while (running) {
      // A slot is an HTTP request in flight; recording its result (batched) does not hold one, but
      // the attempts still waiting to be recorded are bounded too.
      const free = Math.min(concurrency - sending, 4 * concurrency - inFlight.size) - reserved;
      // A deep queue (the last claim came back full) is claimed in big batches — one round trip
      // per half the slots rather than one per slot freed; a shallow one as soon as anything is due.
      if (free >= (deep ? Math.ceil(concurrency / 2) : 1)) {
        const spacing = Math.max(claimSpacingMs, CLAIM_COST_SPACING * emptyClaimMs);
        const wait = deep || signalled ? 0 : lastClaimAt + spacing - performance.now();
        if (wait > 0) {
          await sleep(wait);
          continue;
        }
        signalled = false;
        lastClaimAt = performance.now();
        const claimed = await claim(free);
        emptyClaimMs = claimed.length === 0 ? performance.now() - lastClaimAt : 0;
        for (const delivery of claimed) begin(delivery);
        deep = claimed.length === free;
        // A full batch means more may be due: go again (once enough slots free up).
        if (deep) continue;
      }
      if (running) await sleep(pollIntervalMs);
    }
  }

  /** Sends and records a delivery leased to this worker (by a claim or by the accepting statement). */
  function begin(delivery: ClaimedDelivery) {
    claimedIds.add(delivery.id);
    count(perUrlInFlight, delivery.url, 1);
    track(attempt(delivery).finally(() => claimedIds.delete(delivery.id)));
  }

  /**
   * The accepting statement's share of this worker (handoff.ts): up to `max` free slots, reserved
   * until the batch committed; its deliveries leased to this worker are then sent as claimed ones.
   */
  function reserve(max: number): Reservation | undefined {
    if (!running) return undefined;
    const slots = Math.min(max, Math.min(concurrency - sending, 4 * concurrency - inFlight.size) - reserved);
    if (slots <= 0) return undefined;
    reserved += slots;
    let adopted = false;
    return {
      lease: { slots, perUrl, inFlight: perUrlInFlight, leaseMs: lockMs },
      adopt(deliveries) {
        if (adopted) return;
        adopted = true;
        reserved -= slots;
        if (running) for (const delivery of deliveries) begin(delivery);
        // Stopped meanwhile: their leases are given up, so a claim (here or elsewhere) takes them at once.
        else if (deliveries.length > 0) void queue.release(deliveries.map((d) => d.id)).catch(() => {});
        wake();
      },
    };
  }

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    let sent: Sent;
    try {
      sent = await sendOne(delivery);
    } finally {
      count(perUrlInFlight, delivery.url, -1);
    }
    count(answeredUnrecorded, delivery.url, 1);
    try {
      await record(sent);
    } finally {
      count(answeredUnrecorded, delivery.url, -1);
    }
  }

  type Sent = { delivery: ClaimedDelivery; startedAt: Date; result: SendResult };

  async function sendOne(delivery: ClaimedDelivery): Promise<Sent> {
    const startedAt = clock.now();
    let result: SendResult;
    sending++;
    try {
      result = await send(await agent.get(), guarded, buildRequest(delivery, startedAt), config.deliveryTimeoutMs);
    } catch (error) {
      // Could not even build the request (no signing secret, unreadable header): an attempt that failed here.
      logger.error({ err: error, deliveryId: delivery.id }, "could not prepare a delivery");
      result = { statusCode: null, error: "could not prepare the request", responseBody: null, retryAfter: null, durationMs: 0 };
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
      // The lease runs out and the delivery is tried again (at-least-once), at most MAX_UNRECORDED_CLAIMS
      // times. An outage is logged once by databaseOutage, not once an attempt.
      if (!deps.databaseOutage.noted(error)) logger.error({ err: error, deliveryId: delivery.id }, "could not record a delivery attempt");
    }
  }

  function buildRequest(delivery: ClaimedDelivery, at: Date) {
    // Read by the claim statement: the secrets in force, current first, and the operator's header.
    const { body, headers } = buildForwardedRequest({
      eventId: delivery.event.id,
      body: forwardedBody(delivery.event, delivery.deploymentId),
      at,
      userAgent: USER_AGENT,
      operatorHeader:
        delivery.headerKey && delivery.headerValueSealed ? { name: delivery.headerKey, value: open(delivery.headerValueSealed) } : null,
      signing: delivery.signingSecretsSealed.map(open),
    });
    return { url: delivery.url, headers, body };
  }

  async function recordAttempt(delivery: ClaimedDelivery, startedAt: Date, result: SendResult) {
    const number = delivery.attempts + 1;
    // An HTTP date counts from when the answer came (the clock now), not from when the request left.
    const retryAfterMs = parseRetryAfter(result.retryAfter, clock.now());
    const decision = nextStep(
      number - delivery.cycleStart,
      result.statusCode !== null ? { statusCode: result.statusCode, retryAfterMs } : { error: result.error ?? "no answer" },
      config.deliveryRetryScheduleMs,
    );
    const lastError =
      result.error ??
      (decision.status === "SUCCEEDED" ? null : `HTTP ${result.statusCode}${decision.status === "FAILED" ? `; ${decision.reason}` : ""}`);
    const row = await queue.recordAttempt({
      id: delivery.id,
      status: decision.status,
      delayMs: decision.status === "PENDING" ? decision.delayMs : 0,
      statusCode: result.statusCode,
      lastError,
      url: delivery.url,
      startedAt: startedAt.toISOString(),
      durationMs: result.durationMs,
      error: result.error,
      responseBody: result.responseBody,
      retryAfterSeconds: retryAfterMs === undefined ? null : Math.min(Math.ceil(retryAfterMs / 1000), 2 ** 31 - 1),
    });
    if (!row) return;
    if (row.attempts !== number) {
      logger.warn({ deliveryId: delivery.id, expected: number, recorded: row.attempts }, "a delivery was attempted by two workers");
    }
    const outcome = row.status === "CANCELLED" ? "cancelled" : row.status === "PENDING" ? "retrying" : row.status === "SUCCEEDED" ? "succeeded" : "failed";
    deps.metrics.deliveryAttempted(outcome === "cancelled" ? undefined : outcome, result.durationMs);
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
    queue.publish(row);
  }

  return {
    start() {
      if (running) return;
      running = true;
      unsubscribe = deps.signal.subscribe(() => {
        signalled = true;
        wake();
      });
      detach = deps.handoff?.attach({ reserve });
      // undici loads now, after the port opened (main.ts), rather than on the first attempt (../net/undici.ts).
      agent.get().catch(() => {});
      loop = run().catch((error) => logger.error({ err: error }, "the delivery worker stopped unexpectedly"));
    },
    async stop() {
      running = false;
      unsubscribe?.();
      detach?.();
      wake();
      await loop;
      await Promise.allSettled([...inFlight]);
      await agent.close().catch(() => {});
    },
    async release() {
      const ids = [...claimedIds];
      if (ids.length === 0) return 0;
      await queue.release(ids);
      return ids.length;
    },
    async runOnce() {
      const { claimed } = await queue.claim(concurrency, lockMs, perUrl, answeredUnrecorded);
      // Sent together, then recorded together: one statement for the round, as a busy worker's
      // group commit would record them.
      const sent = await Promise.all(claimed.map(sendOne));
      await Promise.all(sent.map(record));
      return claimed.length;
    },
  };
}

/** Adds `delta` to `url`'s count in `counts`, dropping the entry at zero. */
function count(counts: Map<string, number>, url: string, delta: number) {
  const next = (counts.get(url) ?? 0) + delta;
  if (next > 0) counts.set(url, next);
  else counts.delete(url);
}
