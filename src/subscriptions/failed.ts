import type { Logger } from "pino";
import { connectionSelect, subscriptionSelect, toConnection } from "../connections/connection.ts";
import { findConnector } from "../connectors/registry.ts";
import type { Db } from "../db/database.ts";
import type { EventToRecord } from "../forwarding/record.ts";
import type { SubscriptionFailure } from "./manager.ts";

/**
 * `switchyard.subscription_failed`: recorded (and so forwarded when listed) as the lifecycle
 * connector's event once the catalog has the `switchyard` connector; until then a warning.
 */
export function subscriptionFailedEmitter(deps: { db: Db; logger: Logger; record: (deploymentId: string, event: EventToRecord) => Promise<unknown> }) {
  return async (failure: SubscriptionFailure): Promise<void> => {
    deps.logger.warn({ ...failure }, "provider subscription failed for 24 hours");
    if (!findConnector("switchyard")) return;
    const row = await deps.db.connectedAccount.findUnique({
      where: { id: failure.connectedAccountId },
      select: { ...connectionSelect, providerSubscriptions: { select: subscriptionSelect, where: { status: { not: "DELETED" } } } },
    });
    if (!row) return;
    const { providerSubscriptions, ...connection } = row;
    await deps.record(failure.deploymentId, {
      connector: "switchyard",
      trigger: "subscription_failed",
      account: row.account,
      connectedAccountId: row.id,
      dedupeKey: `switchyard:subscription_failed:${failure.subscriptionId}:${Date.now()}`,
      occurredAt: new Date(),
      data: { connection: toConnection(connection, providerSubscriptions), error: { code: "subscription_failed", message: failure.error } },
    });
  };
}
