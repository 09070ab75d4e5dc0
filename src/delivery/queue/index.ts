/**
 * The delivery queue: every statement that moves a `delivery` row lives in this folder, one file
 * per statement (as graphile-worker's src/sql/), and nothing outside it writes the table — a test
 * (test/delivery/queueOwnsDeliveries.test.ts) fails on any `update delivery` elsewhere.
 *
 * States (`status`, with `next_attempt_at` and `locked_until` telling PENDING's three apart):
 *
 *   PENDING  due        next_attempt_at set; claimed once it is ≤ now and forwarding is ACTIVE
 *            held       next_attempt_at null (HELD): paused, disabled, or no forwarding URL yet
 *            in flight  claimed: locked_until in the future (the lease); the attempt is being sent
 *   SUCCEEDED           an attempt got a 2xx                                 (final until replay)
 *   FAILED              the retry schedule ran out, a permanent refusal, or MAX_UNRECORDED_CLAIMS
 *   CANCELLED           an operator cancelled it                                (final)
 *
 * Statement        from                         to
 *   enqueue        —                            due (forwarding ACTIVE) or held
 *   claim          due                          in flight (while its URL has fewer than the cap in flight:
 *                                               DELIVERY_MAX_IN_FLIGHT_PER_URL); FAILED past MAX_UNRECORDED_CLAIMS
 *   recordAttempts in flight (or CANCELLED)     due later (retry), due now (re-targeted meanwhile), held
 *                                               (forwarding stopped meanwhile), SUCCEEDED, FAILED; a
 *                                               CANCELLED row keeps its status and gains the attempt
 *   retry          PENDING, FAILED              due now (held when forwarding is not ACTIVE); FAILED
 *                                               starts a new cycle of the retry schedule
 *   replay         SUCCEEDED, FAILED            due now (or held)
 *   cancel         PENDING                      CANCELLED
 *   retryFailed    FAILED (since a time)        due now (or held), a new cycle each
 *   hold           due                          held (pause, disable)
 *   resume         held, due later              due at its creation time (oldest first)
 *   retarget       PENDING                      due now to the new forwarding URL (or held)
 *   release        in flight                    due (the lease given up at shutdown)
 *
 * An expired lease is "due" again by itself: a crashed worker's claim needs no statement.
 * In flight is also what the per-destination cap counts: a due row whose URL already has the cap's
 * number of rows in flight stays due (it is not claimed, nothing is written) until one of them is
 * recorded, released or its lease expires.
 * The columns are documented on the row type (row.ts); the shared rules (DUE_NOW, URL_IN_FORCE,
 * HELD, NOT_IN_FLIGHT) in fragments.ts; when forwarding disables itself in ../disablePolicy.ts and
 * when a delivery is tried again in ../retryPolicy.ts.
 */
import type { Logger } from "pino";
import type { Clock } from "../../clock.ts";
import type { Sql } from "../../db/sql.ts";
import { badInput } from "../../errors.ts";
import type { EventBus } from "../../events/bus.ts";
import type { DeliveryStatus } from "../../events/messages.ts";
import type { OperationsMetrics } from "../metrics.ts";
import { publishDeliveryUpdate } from "../publishUpdate.ts";
import type { WakeSignal } from "../../events/wakeSignal.ts";
import { cancel } from "./cancel.ts";
import { type Claim, claim, MAX_UNRECORDED_CLAIMS } from "./claim.ts";
import { hold } from "./hold.ts";
import { type AttemptToRecord, createAttemptRecorder } from "./recordAttempts.ts";
import { release } from "./release.ts";
import { replay } from "./replay.ts";
import { resume } from "./resume.ts";
import { retarget } from "./retarget.ts";
import { retry } from "./retry.ts";
import { retryFailed } from "./retryFailed.ts";
import type { DeliveryRow } from "./row.ts";

export type { AttemptToRecord } from "./recordAttempts.ts";
export type { ClaimedDelivery } from "./claim.ts";
export type { DeliveryRow } from "./row.ts";
export { MAX_UNRECORDED_CLAIMS, UNRECORDED_CLAIMS_ERROR } from "./claim.ts";

export interface DeliveryQueueDeps {
  sql: Sql;
  clock: Clock;
  /** Wakes this process's worker when something became due. */
  signal: WakeSignal;
  /** Live deliveryUpdate messages, published after each commit. */
  bus: EventBus;
  logger: Logger;
  metrics: OperationsMetrics;
  /** FORWARDING_DISABLE_AFTER in milliseconds (../disablePolicy.ts). */
  disableAfterMs: number;
}

/**
 * The operations the rest of the code may do to deliveries. Each is one guarded statement, so it is
 * safe against the worker and other instances: the row lock orders it with the worker's recording
 * statement, and the status guard is re-checked after that lock — a delivery that succeeded a moment
 * earlier is refused, not resurrected.
 */
export function createDeliveryQueue({ sql, clock, signal, bus, logger, metrics, disableAfterMs }: DeliveryQueueDeps) {
  const publish = (row: DeliveryRow) => publishDeliveryUpdate({ bus, logger }, row);
  const recordAttempt = createAttemptRecorder(sql, logger, clock, disableAfterMs);

  async function refusal(id: string, verb: "retried" | "cancelled") {
    const rows = await sql.query<{ status: DeliveryStatus }>(`select status::text as status from delivery where id = $1`, [id]);
    const status = rows[0]?.status;
    const message =
      status === "SUCCEEDED"
        ? `This delivery already succeeded, so it cannot be ${verb}${verb === "retried" ? " (replayDelivery sends it again)" : ""}.`
        : status === "CANCELLED"
          ? `This delivery was cancelled, so it cannot be ${verb}.`
          : status === "FAILED"
            ? "This delivery already failed: there is nothing left to cancel (retryDelivery starts it again)."
            : `This delivery cannot be ${verb}.`;
    return badInput(message, [{ field: "id", message: `delivery is ${status ?? "gone"}` }]);
  }

  return {
    /**
     * Due deliveries for `limit` slots, leased for `lockMs`, never more than `perUrl` in flight to one
     * forwarding URL; those past MAX_UNRECORDED_CLAIMS come back FAILED in `givenUp`, already published.
     */
    async claim(limit: number, lockMs: number, perUrl: number, answeredHere?: ReadonlyMap<string, number>): Promise<Claim> {
      const result = await claim(sql, limit, lockMs, perUrl, clock.now(), answeredHere);
      for (const row of result.givenUp) {
        metrics.deliveryGivenUp();
        logger.warn(
          { deliveryId: row.id, eventId: row.event_id, deploymentId: row.deployment_id, claims: MAX_UNRECORDED_CLAIMS, outcome: "failed" },
          "delivery stopped: sent repeatedly but no attempt could be recorded",
        );
        publish(row);
      }
      return result;
    },

    /**
     * Records one attempt and what comes next (group-committed with others finishing meanwhile).
     * When the batch disabled the deployment's forwarding, its queued deliveries are held. The row
     * is returned unpublished (the worker logs it first); undefined when the delivery took no attempt.
     */
    async recordAttempt(attempt: AttemptToRecord): Promise<DeliveryRow | undefined> {
      const row = await recordAttempt(attempt);
      if (row?.disabled_reason) {
        logger.warn({ deploymentId: row.deployment_id }, "forwarding disabled: every attempt failed for FORWARDING_DISABLE_AFTER");
        await hold(sql, row.deployment_id, clock.now()).catch((error) => logger.warn({ err: error }, "could not hold deliveries"));
      }
      return row;
    },

    publish,

    /** Gives up the leases of these in-flight deliveries (shutdown ran out of time). */
    release: (ids: readonly string[]) => release(sql, ids, clock.now()),

    /** PENDING: attempted now; FAILED: a new cycle of attempts now. Refused (BAD_USER_INPUT) otherwise. */
    async retry(id: string): Promise<void> {
      const row = await retry(sql, id, clock.now());
      if (!row) throw await refusal(id, "retried");
      signal.notify();
      publish(row);
    },

    /**
     * Puts a SUCCEEDED or FAILED delivery back in the queue, due now (an operator fixes the URL, then
     * replays what failed, or re-sends what their server lost). A PENDING delivery is already queued
     * (retry attempts it now) and is refused.
     */
    async replay(id: string): Promise<void> {
      const row = await replay(sql, id, clock.now());
      if (!row) {
        throw badInput("This delivery is still pending (retryDelivery attempts it now) or was cancelled.", [
          { field: "id", message: "delivery is pending or cancelled" },
        ]);
      }
      signal.notify();
      publish(row);
    },

    /** PENDING → CANCELLED. Refused (BAD_USER_INPUT) otherwise. */
    async cancel(id: string): Promise<void> {
      const row = await cancel(sql, id, clock.now());
      if (!row) throw await refusal(id, "cancelled");
      metrics.deliveryCancelled();
      logger.info({ deliveryId: id, eventId: row.event_id, deploymentId: row.deployment_id, outcome: "cancelled" }, "delivery cancelled");
      publish(row);
    },

    /** Every FAILED delivery of the deployment created at or after `since` starts a new cycle now. Returns how many. */
    async retryFailed(deploymentId: string, since: Date): Promise<number> {
      const count = await retryFailed(sql, deploymentId, since, clock.now());
      if (count > 0) signal.notify();
      logger.info({ deploymentId, since: since.toISOString(), count }, "failed deliveries retried");
      return count;
    },

    /** The deployment's due deliveries become held (its forwarding was paused or disabled). */
    hold: (deploymentId: string) => hold(sql, deploymentId, clock.now()),

    /** The deployment's queued deliveries become due, oldest first (its forwarding is ACTIVE again). */
    async resume(deploymentId: string): Promise<void> {
      await resume(sql, deploymentId, clock.now());
      signal.notify();
    },

    /** The deployment's PENDING deliveries go to its new forwarding URL, due now. Returns how many. */
    async retarget(deploymentId: string): Promise<number> {
      const count = await retarget(sql, deploymentId, clock.now());
      if (count > 0) {
        signal.notify();
        logger.info({ deploymentId, count }, "pending deliveries re-targeted to the new forwarding URL");
      }
      return count;
    },
  };
}

export type DeliveryQueue = ReturnType<typeof createDeliveryQueue>;
