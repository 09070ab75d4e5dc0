import type { Logger } from "pino";
import { connectors } from "../connectors/registry.ts";
import type { InboundSecrets } from "../credentials/inboundSecrets.ts";
import type { Db } from "../db/database.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import type { InboundEvents } from "./inbound.ts";

export interface Poller {
  start(): void;
  stop(): Promise<void>;
  /** One sweep over every polled account; returns how many events were stored. */
  runOnce(): Promise<number>;
}

export interface PollerDeps {
  db: Db;
  logger: Logger;
  databaseOutage: Pick<DatabaseOutage, "noted">;
  /** Whether a deployment has a push secret for the connector (then the push drives the reads). */
  inboundSecrets: Pick<InboundSecrets, "get">;
  inboundEvents: Pick<InboundEvents, "pollAccount">;
}

/**
 * Reads new events for accounts whose provider can be read but is not pushing to us: connectors
 * with `inbound.fetchEvents` (Gmail) in deployments that have no push secret configured. With push
 * configured, the push drives the same read and polling would only duplicate work. Several
 * instances may sweep at once: the events' dedupe keys make the second read a no-op.
 */
export function createPoller({ db, logger, databaseOutage, inboundSecrets, inboundEvents }: PollerDeps, intervalMs: number): Poller {
  const pollable = new Map(connectors.filter((def) => def.inbound.fetchEvents).map((def) => [def.name, def]));
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<number> | undefined;

  async function sweep(): Promise<number> {
    const accounts = await db.connectedAccount.findMany({
      where: { status: "ACTIVE", connector: { in: [...pollable.keys()] } },
      select: { id: true, deploymentId: true, connector: true, account: true, externalId: true, cursor: true, createdAt: true },
    });
    let recorded = 0;
    for (const { deploymentId, connector, ...account } of accounts) {
      const def = pollable.get(connector)!;
      try {
        if ((await inboundSecrets.get(deploymentId, def))?.webhookSecret) continue;
        recorded += (await inboundEvents.pollAccount(deploymentId, def, account)).recorded;
      } catch (error) {
        // One unreachable mailbox must not stop the others; the next sweep tries again.
        logger.warn({ err: error, connectedAccountId: account.id }, "polling an account failed");
      }
    }
    return recorded;
  }

  const runOnce = () => (sweeping ??= sweep().finally(() => (sweeping = undefined)));

  return {
    start() {
      timer ??= setInterval(() => void runOnce().catch((error) => databaseOutage.noted(error) || logger.warn({ err: error }, "poll sweep failed")), intervalMs);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await sweeping?.catch(() => {});
    },
    runOnce,
  };
}
