import { badInput } from "../errors.ts";
import type { DeliveryUpdateMessage } from "../events/messages.ts";
import type { Services } from "../services.ts";

/**
 * Puts a SUCCEEDED or FAILED delivery back in the queue, due now, to the deployment's forwarding
 * URL of now (an operator fixes the URL, then replays what failed). The event, its id (the
 * `webhook-id`) and its body are unchanged, so a receiver that already has it can deduplicate.
 * The attempt count carries on: the replay is one more attempt, plus whatever retries the schedule
 * has left after it. A PENDING delivery is already queued and is refused.
 */
export async function replayDelivery(services: Services, id: string): Promise<void> {
  const rows = await services.sql.query<{ id: string; deployment_id: string; event_id: string; attempts: number; last_status_code: number | null; last_error: string | null }>(
    `update delivery set status = 'PENDING', next_attempt_at = now(), locked_until = null, completed_at = null, updated_at = now(),
       url = coalesce((select s.forwarding_url from forwarding_settings s where s.deployment_id = delivery.deployment_id), url)
     where id = $1 and status in ('SUCCEEDED', 'FAILED')
     returning id, deployment_id, event_id, attempts, last_status_code, last_error`,
    [id],
  );
  const row = rows[0];
  if (!row) throw badInput("This delivery is still pending: it will be attempted on its schedule.", [{ field: "id", message: "delivery is already pending" }]);
  services.deliverySignal.notify();
  const message: DeliveryUpdateMessage = {
    id: row.id,
    deploymentId: row.deployment_id,
    eventId: row.event_id,
    status: "PENDING",
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    nextAttemptAt: new Date().toISOString(),
  };
  try {
    services.events.publish("deliveryUpdate", row.deployment_id, message);
  } catch (error) {
    services.logger.warn({ err: error }, "could not publish a delivery update");
  }
}
