import type { DeliveryStatus } from "../../events/messages.ts";

/**
 * A delivery row as every statement of the queue returns it (and as live subscribers are told of
 * it: publishDeliveryUpdate). The one row type of the queue; the columns mean:
 *
 * - `status`: PENDING (queued: due, held or in flight), SUCCEEDED, FAILED, CANCELLED (see index.ts).
 * - `attempts`: attempts recorded so far (delivery_attempt rows); `cycle_start` (not returned) is the
 *   count before the current cycle of retries, which the retry schedule counts from.
 * - `last_status_code` / `last_error`: what the latest attempt got back (null before any attempt).
 * - `next_attempt_at`: when a PENDING row is due; null when held (HELD) or not PENDING.
 *   `locked_until` (not returned) is the claim's lease: a row claimed until then is in flight.
 * - `disabled_reason`: set only by recordAttempts, when the batch's failures disabled the
 *   deployment's forwarding (disablePolicy.ts).
 *
 * Numbers and times come back as the driver gives them (PGlite and pg differ): read them with
 * Number() and new Date().
 */
export interface DeliveryRow {
  id: string;
  deployment_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number | string;
  last_status_code: number | string | null;
  last_error: string | null;
  next_attempt_at: Date | string | null;
  disabled_reason?: string | null;
}

/** The RETURNING clause that gives a DeliveryRow. */
export const RETURNING_ROW = `returning id, deployment_id, event_id, status::text as status, attempts, last_status_code, last_error,
  next_attempt_at at time zone 'UTC' as next_attempt_at`;
