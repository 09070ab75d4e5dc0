import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { type Connection, type ReadPollingHealth, toConnection } from "./connection.ts";
import { withSubscriptions } from "./connections.ts";

/**
 * The connection lifecycle as events of the `switchyard` connector (`switchyard.connection_created`,
 * …): recorded like a provider's event — the event and, when the trigger is in the deployment's
 * Forwarding Trigger List, its delivery in one statement — so they are signed, retried, logged,
 * live on the subscription and replayable like any other. `data` is
 * `{"connection": <Connection>, "error": {"code","message"} | null}`: built from rows that have no
 * token columns, so no token can be in it.
 */
export const LIFECYCLE_CONNECTOR = "switchyard";

export type LifecycleTrigger = "connection_created" | "connection_reauthorized" | "connection_reauth_required" | "connection_deleted" | "subscription_failed" | "polling_failed";

/**
 * What a lifecycle event hands the event recorder (forwarding/record.ts's recordEvent, as far as a
 * lifecycle event fills it), and what comes back. Named here: forwarding/ calls connections/ (tokens),
 * so connections/ knows forwarding/ only through what app.ts passes in.
 */
export interface LifecycleEventToRecord {
  connector: string;
  trigger: string;
  account: string;
  connectedAccountId: string;
  dedupeKey: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

export interface RecordedEvent {
  eventId: string;
  /** The queued delivery, when the trigger is listed. */
  deliveryId: string | null;
}

export interface LifecycleError {
  code: string;
  message: string;
}

export interface LifecycleDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** forwarding/record.ts recordEvent, bound to the app's database and publisher. */
  recordEvent: (deploymentId: string, event: LifecycleEventToRecord) => Promise<RecordedEvent>;
  /** Told first of every change a lifecycle event reports (what the proxy remembers of the connection goes). */
  onChange?: (connectedAccountId: string) => void;
  /** The connection's polling health, shown in the event's connection like everywhere else. */
  pollingHealth?: ReadPollingHealth;
}

export function createLifecycleEvents(deps: LifecycleDeps) {
  /**
   * Records one lifecycle event. Called after the change it reports has committed; a failure to
   * record is logged and swallowed, never undoing or failing what happened (the caller's answer
   * stands).
   */
  async function emit(deploymentId: string, trigger: LifecycleTrigger, connection: Connection, error: LifecycleError | null = null): Promise<RecordedEvent | undefined> {
    const occurredAt = deps.clock.now();
    deps.onChange?.(connection.id);
    try {
      return await deps.recordEvent(deploymentId, {
        connector: LIFECYCLE_CONNECTOR,
        trigger,
        account: connection.account,
        connectedAccountId: connection.id,
        // Each happening is its own event: nothing to deduplicate.
        dedupeKey: `${LIFECYCLE_CONNECTOR}:${trigger}:${connection.id}:${randomBytes(9).toString("base64url")}`,
        occurredAt,
        data: { connection, error },
      });
    } catch (err) {
      deps.logger.error({ err, deploymentId, trigger, connectedAccountId: connection.id }, "could not record a connection lifecycle event");
      return undefined;
    }
  }

  return {
    emit,
    /** emit, for a connection known by id (read as it is now). */
    async emitFor(connectedAccountId: string, trigger: LifecycleTrigger, error: LifecycleError | null = null): Promise<RecordedEvent | undefined> {
      const row = await deps.db.connectedAccount
        .findUnique({ where: { id: connectedAccountId }, select: { ...withSubscriptions, deploymentId: true } })
        .catch((err: unknown) => {
          deps.logger.error({ err, trigger, connectedAccountId }, "could not read a connection for its lifecycle event");
          return null;
        });
      if (!row) return undefined;
      const polling = (await deps.pollingHealth?.([row.id]).catch(() => undefined))?.get(row.id) ?? null;
      // lastEventAt is derived (lastEventAt.ts): the newest event of its own connector, by the index.
      const newest = await deps.db.triggerEvent
        .findFirst({ where: { connectedAccountId: row.id, connector: row.connector }, orderBy: { receivedAt: "desc" }, select: { receivedAt: true } })
        .catch(() => null);
      return emit(row.deploymentId, trigger, toConnection({ ...row, lastEventAt: newest?.receivedAt ?? null }, row.providerSubscriptions, row.watchedResources, polling), error);
    },
  };
}

export type LifecycleEvents = ReturnType<typeof createLifecycleEvents>;
