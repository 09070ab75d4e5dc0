import type { Logger } from "pino";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { SecretBox } from "./crypto/secrets.ts";
import type { InboundSecrets } from "./credentials/inboundSecrets.ts";
import type { Database } from "./db/database.ts";
import type { DiskSpace } from "./db/diskSpace.ts";
import { CHECKPOINT_CHECK_INTERVAL_MS, type CheckpointJob, createCheckpointJob } from "./db/checkpointJob.ts";
import { createVacuumJob, type VacuumJob } from "./db/vacuumJob.ts";
import type { DatabaseOutage } from "./db/outage.ts";
import type { OperationsMetrics } from "./delivery/metrics.ts";
import type { LocalHandoff } from "./delivery/handoff.ts";
import type { DeliveryQueue } from "./delivery/queue/index.ts";
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from "./delivery/worker.ts";
import type { WakeSignal } from "./events/wakeSignal.ts";
import type { InboundEvents } from "./forwarding/inbound.ts";
import type { AccessTokens } from "./connections/accessTokens.ts";
import type { LifecycleEvents } from "./connections/lifecycle.ts";
import { createPoller, type Poller, type PollMetrics } from "./polling/poller.ts";
import { createRetentionJob, type RetentionJob, type RetentionOptions } from "./retention/prune.ts";
import { replayWindowSeconds } from "./connectors/registry.ts";

export interface BackgroundDeps {
  config: Config;
  logger: Logger;
  clock: Clock;
  database: Database;
  box: SecretBox;
  databaseOutage: DatabaseOutage;
  /** The delivery queue's operations over a given pool (the worker gets its own). */
  deliveryQueue: (sql: Database["sql"]) => DeliveryQueue;
  operationsMetrics: OperationsMetrics;
  /** Wakes the delivery worker when a delivery was recorded. */
  signal: WakeSignal;
  accessTokens: AccessTokens;
  inboundEvents: InboundEvents;
  inboundSecrets: InboundSecrets;
  pollMetrics: PollMetrics;
  /** Deliveries this instance recorded, handed straight to its worker. */
  handoff: LocalHandoff;
  /** Announces switchyard.polling_failed. */
  lifecycle: LifecycleEvents;
  /** The embedded database's disk: the poller reads nothing while it is low. */
  diskSpace: Pick<DiskSpace, "low">;
}

/**
 * The background work of an app, made on demand (main.ts starts one of each; tests start what they
 * test): the delivery worker and the poller on the worker's own database pool, the retention job,
 * and the vacuum PostgreSQL's autovacuum would do where it does not run (the embedded database, or
 * a server with autovacuum off).
 */
export function createBackgroundWork(deps: BackgroundDeps) {
  const { config, logger, clock, database, databaseOutage } = deps;
  return {
    /** A delivery worker working this app's queue over the worker's own database pool. */
    createDeliveryWorker: (options?: DeliveryWorkerOptions): DeliveryWorker =>
      createDeliveryWorker(
        { queue: deps.deliveryQueue(database.workerSql), clock, config, logger, box: deps.box, metrics: deps.operationsMetrics, signal: deps.signal, databaseOutage, handoff: deps.handoff },
        options,
      ),
    /** A poller reading this app's polled connections every POLL_INTERVAL over the worker's pool. */
    createPoller: (): Poller =>
      createPoller(
        {
          sql: database.workerSql,
          clock,
          logger,
          connectorEnv: config.connectorEnv,
          allowHttpApiBase: config.env !== "production",
          accessTokens: deps.accessTokens,
          inboundEvents: deps.inboundEvents,
          inboundSecrets: deps.inboundSecrets,
          databaseOutage,
          lifecycle: deps.lifecycle,
          metrics: deps.pollMetrics,
          diskSpace: deps.diskSpace,
        },
        { intervalMs: config.pollIntervalMs, failedAfterMs: config.pollingFailedAfterMs },
      ),
    /** Deletes what is older than RETENTION_DAYS, in batches. */
    createRetentionJob: (options?: RetentionOptions): RetentionJob =>
      createRetentionJob({ sql: database.sql, retentionDays: config.retentionDays, logger, clock, databaseOutage, replayWindowSeconds }, options),
    /** Vacuums and analyzes the app's tables where nothing else does: PGlite has no autovacuum, and a server's may be off. */
    createVacuumJob: (): VacuumJob => createVacuumJob({ sql: database.sql, logger, embedded: database.kind === "pglite", databaseOutage, intervalMs: config.vacuumIntervalMs }),
    /** Checkpoints the embedded database, which has no checkpointer; a PostgreSQL server checkpoints itself (none). */
    createCheckpointJob: (): CheckpointJob | undefined =>
      database.kind === "pglite" ? createCheckpointJob({ sql: database.sql, logger, databaseOutage, intervalMs: CHECKPOINT_CHECK_INTERVAL_MS }) : undefined,
  };
}

export type BackgroundWork = ReturnType<typeof createBackgroundWork>;
