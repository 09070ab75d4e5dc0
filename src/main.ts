import { createServer } from "node:http";
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/database.ts";
import { createDeliveryWorker } from "./delivery/worker.ts";
import { createPoller } from "./forwarding/poll.ts";
import { createRetentionJob } from "./retention/prune.ts";
import { createLogger } from "./log.ts";
import { refreshExpiringTokens } from "./oauth/tokens.ts";

/** The process: load config → open the database (migrating it) → build the app → listen → stop on signals. */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);

  const database = await openDatabase(
    config.databaseUrl
      ? { kind: "postgresql", url: config.databaseUrl, statementTimeoutMs: config.databaseStatementTimeoutMs }
      : { kind: "pglite", dataDir: config.dataDir },
    logger,
  );
  // Loaded only when configured: start-up time is mostly loading modules.
  const redis = config.redisUrl
    ? new (await import("ioredis")).Redis(config.redisUrl, { maxRetriesPerRequest: 2, keyPrefix: config.redisKeyPrefix })
    : undefined;
  redis?.on("error", (error) => logger.warn({ err: error }, "redis connection error"));

  const app = buildApp({ config, logger, database, redis });
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 15_000 }, app.handle);
  app.attach(server);

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const deliveryWorker = createDeliveryWorker(app.services);
  deliveryWorker.start();
  const poller = createPoller(app.services, config.pollIntervalMs);
  poller.start();
  const retention = createRetentionJob(app.services);
  retention.start();
  // Tokens are refreshed ahead of expiry, so a forwarded Gmail event never waits on a refresh.
  const tokenRefresher = setInterval(() => {
    refreshExpiringTokens(app.services).catch((error) => logger.warn({ err: error }, "token refresh sweep failed"));
  }, 60_000);
  const base = config.publicUrl;
  logger.info(
    { database: database.kind === "pglite" ? `embedded (${config.dataDir})` : "postgresql", port: config.port },
    "Switchyard is running",
  );
  process.stdout.write(
    [
      "",
      `  Switchyard is up (${database.kind === "pglite" ? `embedded database in ${config.dataDir}` : "PostgreSQL"})`,
      `  Console   ${base}/console`,
      `  GraphQL   ${base}/graphql`,
      `  REST      ${base}/api/data  ·  ${base}/api/v1/connector/service/{connector}/auth-url`,
      `  Health    ${base}/healthz  ·  ${base}/readyz  ·  ${base}/metrics`,
      "",
    ].join("\n") + "\n",
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    // Stop taking requests, let in-flight ones finish, then release the database.
    const forced = setTimeout(() => process.exit(1), 10_000).unref();
    server.closeIdleConnections();
    await app.closeLive(); // SSE streams and websockets would otherwise hold server.close open
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearInterval(tokenRefresher);
    await poller.stop();
    await retention.stop();
    await deliveryWorker.stop(); // attempts in flight are sent and recorded before the database closes
    await app.close();
    redis?.disconnect();
    await database.close();
    clearTimeout(forced);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  console.error("Switchyard failed to start:", error instanceof Error ? error.message : error);
  process.exit(1);
});
