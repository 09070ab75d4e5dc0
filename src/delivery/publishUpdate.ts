import type { DeliveryStatus, DeliveryUpdateMessage } from "../events/messages.ts";
import type { Services } from "../services.ts";

/** A delivery row as the worker's record statement and the steering statements return it. */
export interface DeliveryUpdateRow {
  id: string;
  deployment_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number | string;
  last_status_code: number | string | null;
  last_error: string | null;
  next_attempt_at: Date | string | null;
}

/** Tells live subscribers (the console, `switchyard listen`) what a delivery became. Saved first: a lost message loses nothing. */
export function publishDeliveryUpdate(services: Services, row: DeliveryUpdateRow): void {
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
    services.logger.warn({ err: error }, "could not publish a delivery update");
  }
}
