/**
 * What travels on the event bus. Messages carry everything a subscriber shows, so a thousand
 * subscribers do not turn one event into a thousand database reads. The database stays the
 * source of truth: a message is published only after the transaction that wrote it commits.
 */
export type DeliveryStatus = "PENDING" | "SUCCEEDED" | "FAILED" | "CANCELLED";

export interface DeliverySummary {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
}

export interface ForwardedEventMessage {
  id: string; // evt_…
  deploymentId: string;
  type: string; // "<connector>.<trigger>"
  connector: string;
  trigger: string;
  account: string;
  occurredAt: string; // ISO-8601
  payload: unknown;
  /** The watched resource's params (§13); null: not tied to a resource. */
  resource?: Record<string, string> | null;
  delivery: DeliverySummary | null;
}

export interface DeliveryUpdateMessage extends DeliverySummary {
  deploymentId: string;
  eventId: string;
  lastError: string | null;
  nextAttemptAt: string | null;
}
