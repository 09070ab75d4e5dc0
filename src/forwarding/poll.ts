import { connectors } from "../connectors/registry.ts";
import type { Services } from "../services.ts";
import { pollAccount } from "./inbound.ts";

export interface Poller {
  start(): void;
  stop(): Promise<void>;
  /** One sweep over every polled account; returns how many events were stored. */
  runOnce(): Promise<number>;
}

/**
 * Reads new events for accounts whose provider can be read but is not pushing to us: connectors
 * with `inbound.fetchEvents` (Gmail) in deployments that have no push secret configured. With push
 * configured, the push drives the same read and polling would only duplicate work. Several
 * instances may sweep at once: the events' dedupe keys make the second read a no-op.
 */
export function createPoller(services: Services, intervalMs: number): Poller {
  const pollable = new Map(connectors.filter((def) => def.inbound.fetchEvents).map((def) => [def.name, def]));
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<number> | undefined;

  async function sweep(): Promise<number> {
    const accounts = await services.db.connectedAccount.findMany({
      where: { status: "ACTIVE", connector: { in: [...pollable.keys()] } },
      select: { id: true, deploymentId: true, connector: true, account: true, externalId: true, cursor: true, createdAt: true },
    });
    let recorded = 0;
    for (const { deploymentId, connector, ...account } of accounts) {
      const def = pollable.get(connector)!;
      try {
        if ((await services.inboundCredentials.get(services, deploymentId, def))?.webhookSecret) continue;
        recorded += (await pollAccount(services, deploymentId, def, account)).recorded;
      } catch (error) {
        // One unreachable mailbox must not stop the others; the next sweep tries again.
        services.logger.warn({ err: error, connectedAccountId: account.id }, "polling an account failed");
      }
    }
    return recorded;
  }

  const runOnce = () => (sweeping ??= sweep().finally(() => (sweeping = undefined)));

  return {
    start() {
      timer ??= setInterval(() => void runOnce().catch((error) => services.databaseOutage.noted(error) || services.logger.warn({ err: error }, "poll sweep failed")), intervalMs);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await sweeping?.catch(() => {});
    },
    runOnce,
  };
}
