import { createServer } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/database.ts";
import { createLogger } from "./log.ts";

/** How long after the port opens the background work starts (see below). */
const BACKGROUND_START_DELAY_MS = 500;
/** When the start's garbage is collected (see below): after the background work's first pass. */
const START_GARBAGE_COLLECTION_MS = 5_000;
/**
 * How often the delivery worker reads an embedded database's queue when nothing woke it (250 ms on
 * PostgreSQL, where other instances queue work too). One instance serves an embedded database and
 * everything it queues wakes its own worker (the accepting statement's handoff, the wake signal of
 * every operator action), so the poll only finds retries coming due and leases run out, and those
 * can wait a second. Each poll is a statement PGlite runs on this thread: an idle instance spent
 * 27–37 ms of CPU a second polling every 250 ms, 17–18 polling every second (docs/benchmarks.md).
 */
const EMBEDDED_WORKER_POLL_MS = 1_000;

/**
 * One full garbage collection, once, when the start's work is done: compiling the modules and the
 * first statements leave ~15 MB of garbage that an idle V8 keeps for minutes (idle RSS 218 → 203
 * and 209 → 197 MB embedded, measured; docs/benchmarks.md, fourth release). `gc` is reached
 * through a fresh context so that no `--expose-gc` is needed on the command line.
 */
function collectStartGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

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
  // A promise nobody handled is a bug to fix, not a reason to drop every request in flight: logged
  // loudly, the process goes on. (Node's default ends it; an unhandled Redis publish once did.)
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection (a bug: please report it)"));

  // The database opens (PGlite compiles its WebAssembly off this thread) while the app's modules load.
  const opening = openDatabase(
    config.databaseUrl
      ? { kind: "postgresql", url: config.databaseUrl, statementTimeoutMs: config.databaseStatementTimeoutMs }
      : {
          kind: "pglite",
          dataDir: config.dataDir,
          onStorageFailure: (failure) => {
            // Runs inside the failing write: PostgreSQL would PANIC next and hold this thread for good.
            logger.fatal({ code: failure.code, path: failure.path }, "the embedded database could not write to disk; stopping");
            process.stderr.write(
              `Switchyard stopped: the embedded database could not write ${failure.path} (${failure.message}). ` +
                `Free space on the disk holding ${config.dataDir} (see docs/operations.md), then start it again: committed data is recovered.\n`,
            );
            process.exit(74);
          },
          testOnlyFailWritesWhen: config.testOnlyFailDiskWritesWhen,
        },
    logger,
  );
  const [database, { buildApp }] = await Promise.all([opening, import("./app.ts")]);
  // Loaded only when configured: start-up time is mostly loading modules.
  // No offline queue: while Redis is away a command fails at once (and falls back) instead of waiting.
  const redis = config.redisUrl
    ? new (await import("ioredis")).Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: false, keyPrefix: config.redisKeyPrefix })
    : undefined;
  if (redis) {
    // Connection errors are reported as a state change (src/events/redisHealth.ts), once per outage.
    redis.on("error", () => undefined);
    const connected = await Promise.race([
      new Promise<boolean>((resolve) => redis.once("ready", () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref()),
    ]);
    if (!connected) logger.warn("Redis is not reachable at start-up: starting without it (live events and rate limits on this instance only) and retrying in the background");
  }

  const app = buildApp({ config, logger, database, redis });
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 15_000 }, app.handle);
  app.attach(server);

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  // The background work starts a moment after the port opens. Its first statements (the catalog's
  // subscriptions planned, the first claims) cost a few hundred milliseconds of CPU on the embedded
  // database, which runs on this thread: started at once, they held up the readiness probe the
  // supervisor is waiting on. Nothing is lost meanwhile: what arrives is recorded, and worked on the first pass.
  let background: { stop(): Promise<unknown>; release(): Promise<number> } | undefined;
  const starting = setTimeout(() => {
    const deliveryWorker = app.createDeliveryWorker(database.kind === "pglite" ? { pollIntervalMs: EMBEDDED_WORKER_POLL_MS } : {});
    deliveryWorker.start();
    app.subscriptions.start();
    const poller = app.createPoller();
    poller.start();
    const retention = app.createRetentionJob();
    retention.start();
    const vacuum = app.createVacuumJob();
    vacuum.start();
    const checkpoints = app.createCheckpointJob();
    checkpoints?.start();
    // Tokens are refreshed ahead of expiry, so a forwarded Gmail event never waits on a refresh.
    const tokenRefresher = setInterval(() => {
      app.accessTokens.refreshExpiring().catch((error) => {
        if (!app.databaseOutage.noted(error)) logger.warn({ err: error }, "token refresh sweep failed");
      });
    }, 60_000);
    background = {
      stop: () => {
        clearInterval(tokenRefresher);
        // The delivery worker's attempts in flight are sent and recorded.
        return Promise.all([deliveryWorker.stop(), poller.stop(), retention.stop(), vacuum.stop(), checkpoints?.stop(), app.subscriptions.stop()]);
      },
      release: () => deliveryWorker.release(),
    };
  }, BACKGROUND_START_DELAY_MS);
  setTimeout(collectStartGarbage, START_GARBAGE_COLLECTION_MS).unref();
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
  /**
   * SIGTERM/SIGINT: stop taking work, let attempts in flight finish and be recorded for up to
   * SHUTDOWN_GRACE, release what is still unfinished so another instance takes it at once, close.
   * Nothing here may wait without a bound: the whole sequence ends within SHUTDOWN_GRACE + 10 s.
   */
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.shutdownGraceMs;
    logger.info({ signal, graceMs }, "shutting down");
    const forced = setTimeout(() => {
      logger.error("shutdown did not finish in time; exiting");
      process.exit(1);
    }, graceMs + 10_000).unref();
    const within = <T>(work: Promise<T>, ms: number) =>
      Promise.race([work.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())]);

    // /readyz fails and new requests are turned away (503, Connection: close) from now on. The port
    // stays open meanwhile, so a load balancer still routing here hears "go elsewhere", not a refusal.
    app.drain();
    server.closeIdleConnections();
    clearTimeout(starting);
    await app.closeLive(); // SSE streams and websockets would otherwise hold server.close open
    const finished = await within(background?.stop() ?? Promise.resolve(), graceMs);
    if (!finished) {
      const released = await (background?.release() ?? Promise.resolve(0)).catch(() => 0);
      logger.warn({ released, graceMs }, "SHUTDOWN_GRACE ran out: unfinished attempts were cut and their deliveries released for another instance");
    }
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    if (!(await within(serverClosed, 1_000))) server.closeAllConnections();
    await app.close();
    redis?.disconnect();
    await within(database.close(), 5_000);
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
