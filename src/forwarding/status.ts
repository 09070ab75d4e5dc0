import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Sql } from "../db/sql.ts";
import type { DeliveryQueue } from "../delivery/queue/index.ts";
import { badInput } from "../errors.ts";

/**
 * Pausing and resuming a deployment's forwarding. The settings' status is what the worker obeys:
 * the claim only takes deliveries of ACTIVE settings, so a pause holds everything from the moment
 * it commits — including deliveries recorded in the same instant, and retries coming due. Marking
 * the deployment's queued rows as held is the queue's `hold`, a second, separate statement that
 * only keeps them out of every claim's index scan; nothing depends on it for correctness.
 *
 * The two statements never run in one transaction: the worker's recording statement locks delivery
 * rows and then the settings row, so holding the settings row while waiting for delivery rows could
 * deadlock with it.
 */

export type ForwardingStatus = "ACTIVE" | "PAUSED" | "DISABLED";

/** What pausing and resuming use: the settings' table, the queue for the deliveries, and the app's clock (when it changed). */
export interface ForwardingStatusDeps {
  sql: Sql;
  logger: Logger;
  deliveries: DeliveryQueue;
  clock: Clock;
}

export async function pauseForwarding({ sql, logger, deliveries, clock }: ForwardingStatusDeps, deploymentId: string): Promise<void> {
  const rows = await sql.query<{ status: ForwardingStatus }>(
    // A DISABLED deployment stays DISABLED (and keeps its reason): it is held already.
    `update forwarding_settings set
       status = case when status = 'ACTIVE' then 'PAUSED'::"ForwardingStatus" else status end,
       status_changed_at = case when status = 'ACTIVE' then $2::timestamp else status_changed_at end,
       updated_at = $2::timestamp
     where deployment_id = $1
     returning status::text as status`,
    [deploymentId, clock.now().toISOString()],
  );
  if (!rows[0]) throw noSettings();
  await deliveries.hold(deploymentId);
  logger.info({ deploymentId }, "forwarding paused");
}

/**
 * ACTIVE again, from PAUSED or DISABLED. Every queued delivery becomes due (the queue's `resume`) with its creation time
 * as its due time, so the backlog goes out oldest first (including those that were waiting for a
 * retry: the operator just said the endpoint is ready). The run of failures starts afresh, so one
 * more failure does not disable it again at once.
 */
export async function resumeForwarding({ sql, logger, deliveries, clock }: ForwardingStatusDeps, deploymentId: string): Promise<void> {
  const rows = await sql.query<{ deployment_id: string }>(
    `update forwarding_settings set status = 'ACTIVE', disabled_reason = null, status_changed_at = null, failing_since = null, updated_at = $2::timestamp
     where deployment_id = $1
     returning deployment_id`,
    [deploymentId, clock.now().toISOString()],
  );
  if (!rows[0]) throw noSettings();
  await deliveries.resume(deploymentId);
  logger.info({ deploymentId }, "forwarding resumed");
}

function noSettings() {
  return badInput("Save a forwarding URL first (saveForwardingSettings): there is nothing to pause or resume yet.", [
    { field: "deploymentId", message: "has no forwarding settings yet" },
  ]);
}
