import type { Logger } from "pino";
import type { EventBus } from "../events/bus.ts";
import type { DeliveryUpdateMessage } from "../events/messages.ts";
import type { DeliveryRow } from "./queue/row.ts";

/** Tells live subscribers (the console, `switchyard listen`) what a delivery became. Saved first: a lost message loses nothing. */
export function publishDeliveryUpdate({ bus, logger }: { bus: EventBus; logger: Logger }, row: DeliveryRow): void {
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
    bus.publish("deliveryUpdate", row.deployment_id, message);
  } catch (error) {
    logger.warn({ err: error }, "could not publish a delivery update");
  }
}
