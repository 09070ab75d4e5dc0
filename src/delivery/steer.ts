import { badInput } from "../errors.ts";
import type { DeliveryStatus } from "../events/messages.ts";
import type { Services } from "../services.ts";
import { publishDeliveryUpdate } from "./publishUpdate.ts";

/**
 * What an operator does to single deliveries of a misbehaving endpoint: retry one now, cancel one,
 * retry every failure since a time. Each is one guarded UPDATE, so it is safe against the worker and
 * other instances: the row lock orders it with the worker's recording statement, and the status
 * guard is re-checked after that lock — a delivery that succeeded a moment earlier is refused, not
 * resurrected.
 *
 * A delivery made due while its deployment's forwarding is PAUSED or DISABLED is held instead
 * (next_attempt_at null) and goes out on resume; its URL is always the one in force when it is
 * attempted (the claim reads it).
 */

type Row = {
  id: string;
  deployment_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | string | null;
};

const RETURNING = `returning id, deployment_id, event_id, status::text as status, attempts, last_status_code, last_error,
  next_attempt_at at time zone 'UTC' as next_attempt_at`;

/** The forwarding URL in force (what the claim will use anyway), so the answer shows where it goes. */
const URL_IN_FORCE = `coalesce((select s.forwarding_url from forwarding_settings s where s.deployment_id = delivery.deployment_id), url)`;

/** Due now when the deployment forwards; held (null) while paused, disabled or without a URL. */
const DUE_NOW = `case when exists (select 1 from forwarding_settings s where s.deployment_id = delivery.deployment_id and s.status = 'ACTIVE')
  then now() end`;

/**
 * PENDING: attempted now instead of at its scheduled time (its retry schedule carries on after).
 * FAILED: a new cycle of attempts starting now — the whole retry schedule again.
 * A PENDING delivery whose attempt is in flight keeps that attempt: it is the "now".
 */
export async function retryDelivery(services: Services, id: string): Promise<void> {
  const rows = await services.sql.query<Row>(
    `update delivery set
       status = 'PENDING',
       cycle_start = case when status = 'FAILED' then attempts else cycle_start end,
       claim_count = 0,
       next_attempt_at = ${DUE_NOW},
       url = ${URL_IN_FORCE},
       completed_at = null,
       updated_at = now()
     where id = $1 and status in ('PENDING', 'FAILED')
     ${RETURNING}`,
    [id],
  );
  if (!rows[0]) throw await refusal(services, id, "retried");
  services.deliverySignal.notify();
  publishDeliveryUpdate(services, rows[0]);
}

/**
 * Puts a SUCCEEDED or FAILED delivery back in the queue, due now (an operator fixes the URL, then
 * replays what failed, or re-sends what their server lost). The event, its id (the `webhook-id`)
 * and its body are unchanged, so a receiver that already has it can deduplicate. The attempt count
 * carries on: the replay is one more attempt, plus whatever retries the schedule has left after it.
 * A PENDING delivery is already queued (retryDelivery attempts it now) and is refused.
 */
export async function replayDelivery(services: Services, id: string): Promise<void> {
  const rows = await services.sql.query<Row>(
    `update delivery set status = 'PENDING', claim_count = 0, next_attempt_at = ${DUE_NOW}, url = ${URL_IN_FORCE}, locked_until = null, completed_at = null, updated_at = now()
     where id = $1 and status in ('SUCCEEDED', 'FAILED')
     ${RETURNING}`,
    [id],
  );
  if (!rows[0]) {
    throw badInput("This delivery is still pending (retryDelivery attempts it now) or was cancelled.", [
      { field: "id", message: "delivery is pending or cancelled" },
    ]);
  }
  services.deliverySignal.notify();
  publishDeliveryUpdate(services, rows[0]);
}

/** PENDING → CANCELLED: never attempted again. An attempt already in flight is recorded, and that is all. */
export async function cancelDelivery(services: Services, id: string): Promise<void> {
  const rows = await services.sql.query<Row>(
    `update delivery set status = 'CANCELLED', next_attempt_at = null, completed_at = now(), updated_at = now()
     where id = $1 and status = 'PENDING'
     ${RETURNING}`,
    [id],
  );
  if (!rows[0]) throw await refusal(services, id, "cancelled");
  services.operationsMetrics.deliveryCancelled();
  services.logger.info({ deliveryId: id, eventId: rows[0].event_id, deploymentId: rows[0].deployment_id, outcome: "cancelled" }, "delivery cancelled");
  publishDeliveryUpdate(services, rows[0]);
}

/**
 * Every FAILED delivery of the deployment created at or after `since` starts a new cycle of attempts
 * now. Returns how many. One statement: the (deployment_id, created_at) index bounds it.
 */
export async function retryFailedDeliveries(services: Services, deploymentId: string, since: Date): Promise<number> {
  const rows = await services.sql.query<{ count: string | number }>(
    `with retried as (
       update delivery set status = 'PENDING', cycle_start = attempts, claim_count = 0, next_attempt_at = ${DUE_NOW}, url = ${URL_IN_FORCE}, completed_at = null, updated_at = now()
       where deployment_id = $1 and created_at >= $2::timestamp and status = 'FAILED'
       returning 1
     )
     select count(*) as count from retried`,
    [deploymentId, since.toISOString()],
  );
  const count = Number(rows[0]?.count ?? 0);
  if (count > 0) services.deliverySignal.notify();
  services.logger.info({ deploymentId, since: since.toISOString(), count }, "failed deliveries retried");
  return count;
}

async function refusal(services: Services, id: string, verb: "retried" | "cancelled") {
  const rows = await services.sql.query<{ status: DeliveryStatus }>(`select status::text as status from delivery where id = $1`, [id]);
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

