import type { Sql } from "../db/sql.ts";
import { badInput } from "../errors.ts";
import type { Services } from "../services.ts";

/**
 * Pausing and resuming a deployment's forwarding. The settings' status is what the worker obeys:
 * the claim only takes deliveries of ACTIVE settings, so a pause holds everything from the moment
 * it commits — including deliveries recorded in the same instant, and retries coming due. Marking
 * the deployment's queued rows as held (next_attempt_at null) is a second, separate statement that
 * only keeps them out of every claim's index scan; nothing depends on it for correctness.
 *
 * The two statements never run in one transaction: the worker's recording statement locks delivery
 * rows and then the settings row, so holding the settings row while waiting for delivery rows could
 * deadlock with it.
 */

export type ForwardingStatus = "ACTIVE" | "PAUSED" | "DISABLED";

export async function pauseForwarding(services: Services, deploymentId: string): Promise<void> {
  const rows = await services.sql.query<{ status: ForwardingStatus }>(
    // A DISABLED deployment stays DISABLED (and keeps its reason): it is held already.
    `update forwarding_settings set
       status = case when status = 'ACTIVE' then 'PAUSED'::"ForwardingStatus" else status end,
       status_changed_at = case when status = 'ACTIVE' then now() else status_changed_at end,
       updated_at = now()
     where deployment_id = $1
     returning status::text as status`,
    [deploymentId],
  );
  if (!rows[0]) throw noSettings();
  await holdDeliveries(services, deploymentId);
  services.logger.info({ deploymentId }, "forwarding paused");
}

/**
 * ACTIVE again, from PAUSED or DISABLED. Every queued delivery becomes due with its creation time
 * as its due time, so the backlog goes out oldest first (including those that were waiting for a
 * retry: the operator just said the endpoint is ready). The run of failures starts afresh, so one
 * more failure does not disable it again at once.
 */
export async function resumeForwarding(services: Services, deploymentId: string): Promise<void> {
  const rows = await services.sql.query<{ deployment_id: string }>(
    `update forwarding_settings set status = 'ACTIVE', disabled_reason = null, status_changed_at = null, failing_since = null, updated_at = now()
     where deployment_id = $1
     returning deployment_id`,
    [deploymentId],
  );
  if (!rows[0]) throw noSettings();
  await services.sql.query(
    // Rows whose attempt is in flight are skipped: recording it schedules them (settings are ACTIVE now).
    `update delivery set next_attempt_at = created_at, updated_at = now()
     where id in (
       select id from delivery
       where deployment_id = $1 and status = 'PENDING' and (next_attempt_at is null or next_attempt_at > now())
         and (locked_until is null or locked_until < now())
       for update skip locked)`,
    [deploymentId],
  );
  services.deliverySignal.notify();
  services.logger.info({ deploymentId }, "forwarding resumed");
}

/** Marks a deployment's queued deliveries held (see above). Rows in flight are left to their recording. */
export async function holdDeliveries(services: Services, deploymentId: string, sql: Sql = services.sql): Promise<void> {
  await sql.query(
    `update delivery set next_attempt_at = null, updated_at = now()
     where id in (
       select id from delivery
       where deployment_id = $1 and status = 'PENDING' and next_attempt_at is not null
       for update skip locked)
     and exists (select 1 from forwarding_settings s where s.deployment_id = $1 and s.status <> 'ACTIVE')`,
    [deploymentId],
  );
}

function noSettings() {
  return badInput("Save a forwarding URL first (saveForwardingSettings): there is nothing to pause or resume yet.", [
    { field: "deploymentId", message: "has no forwarding settings yet" },
  ]);
}
