import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import { type BackgroundWork, createBackgroundWork } from "./background.ts";
import { createGraphQLEndpoint } from "./graphql/endpoint.ts";
import { createOriginPolicy } from "./graphql/requestGuard.ts";
import { createDiskSpace } from "./db/diskSpace.ts";
import { createFrontDoor } from "./http/frontDoor.ts";
import { createRequestMetrics } from "./http/requestMetrics.ts";
import type { Route } from "./http/types.ts";
import { registerPollMetrics } from "./polling/poller.ts";
import type { Logger } from "pino";
import { createApiKeys } from "./auth/apiKeys.ts";
import { createSessions } from "./auth/sessions.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { createBodyGate } from "./http/bodyGate.ts";
import { createRouter } from "./http/router.ts";
import { consoleRoutes } from "./rest/console.ts";
import { getData } from "./rest/getData.ts";
import { getAuthUrl } from "./rest/getAuthUrl.ts";
import { createConnectSettings } from "./connections/connectSettings.ts";
import { createProxyRateLimit } from "./connections/proxyRateLimit.ts";
import { connectRoutes } from "./rest/connect/index.ts";
import { createCredentialCheck } from "./connect/credentials.ts";
import { healthRoutes } from "./rest/health.ts";
import { getInboundWebhook, postInboundWebhook } from "./rest/postInboundWebhook.ts";
import { openApiRoutes } from "./openapi/routes.ts";
import { createAccessCache } from "./auth/access.ts";
import { createLoginGuard } from "./auth/loginGuard.ts";
import { createRevocations } from "./auth/revocations.ts";
import { createUsers } from "./auth/users.ts";
import { createPasswordHasher } from "./crypto/passwords.ts";
import { createSecretBox, type SecretBox } from "./crypto/secrets.ts";
import { createDatabaseOutage, type DatabaseOutage } from "./db/outage.ts";
import { createOperationsMetrics } from "./delivery/metrics.ts";
import { createWakeSignal, type WakeSignal } from "./events/wakeSignal.ts";
import { createSigningSecrets } from "./deployments/signingSecrets.ts";
import { createEventBus, type EventBus } from "./events/bus.ts";
import { createRedisHealth } from "./events/redisHealth.ts";
import { createForwarding } from "./forwarding/index.ts";
import { createOrganizations } from "./organizations/organizations.ts";
import { createRateLimit } from "./ratelimit/limiter.ts";
import { getConnectionToken } from "./rest/getConnectionToken.ts";
import { createProxyEndpoint, PROXY_PROBLEM_HEADERS, PROXY_ROUTE } from "./rest/proxy.ts";
import { createConnectionsInUse, createConnectionTokens } from "./connections/token.ts";
import { createConnectionStore, createPollSchedule } from "./connections/store/index.ts";
import { authModeOf } from "./connections/authModes/index.ts";
import { createProxy } from "./connections/proxy.ts";
import { type Clock, systemClock } from "./clock.ts";
import { type ClientCredentials, createClientCredentials } from "./credentials/clientCredentials.ts";
import { createInboundSecrets, type InboundSecrets } from "./credentials/inboundSecrets.ts";
import { createOperatorCredentials } from "./credentials/operatorCredentials.ts";
import { createVerificationTokens } from "./credentials/verificationTokens.ts";
import { createInboundEvents, type InboundEvents } from "./forwarding/inbound.ts";
import { createEventRecorder, type EventRecorder } from "./forwarding/record.ts";
import { type AccessTokens, createAccessTokens } from "./connections/accessTokens.ts";
import { createDeliveryQueue, type DeliveryQueue } from "./delivery/queue/index.ts";
import { allConnectors } from "./connectors/registry.ts";
import { createLocalHandoff } from "./delivery/handoff.ts";
import { createLastEventAtLoader } from "./connections/lastEventAt.ts";
import { createSubscriptionManager, type SubscriptionManager } from "./subscriptions/manager.ts";
import { createSubscriptionMetrics } from "./subscriptions/metrics.ts";
import { createSubscriptionNotifications } from "./subscriptions/notifications.ts";
import { createSubscriptionQueue } from "./subscriptions/queue/index.ts";
import { createConnections } from "./connections/connections.ts";
import { createResourceStore } from "./connections/resources/index.ts";
import { createResources } from "./connections/resources/resources.ts";
import { createLifecycleEvents } from "./connections/lifecycle.ts";
import { createRevocation, createGrantRevocationMetrics } from "./connections/revoke.ts";
import { connectionRoutes } from "./rest/connectionRoutes.ts";
import { createPollingHealth } from "./polling/health.ts";
import { type PolledPairs, polledPairs, pollTargets } from "./polling/targets.ts";

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  redis?: Redis;
  /** What decides by the time reads it here; tests pass a fake one (test/helpers/clock.ts). */
  clock?: Clock;
}

/** The app's background work (background.ts: delivery worker, poller, retention job, vacuum job), which main.ts starts. */
export interface App extends BackgroundWork {
  config: Config;
  logger: Logger;
  /** Seals and opens secrets at rest (ENCRYPTION_KEY). */
  box: SecretBox;
  /** Live notifications for subscriptions: publish after commit; the database is the truth (events/bus.ts). */
  bus: EventBus;
  /** Database outages: 503 instead of 500, one warning per outage, a bounded readiness check (db/outage.ts). */
  databaseOutage: DatabaseOutage;
  /** Stores an event and its delivery in one statement (forwarding/record.ts). */
  recorder: EventRecorder;
  /** Deployment + webhook secret per connector, kept ≤ 1 s (the webhook routes' and the poller's). */
  inboundSecrets: InboundSecrets;
  /** The OAuth client in force per deployment and connector. */
  clientCredentials: ClientCredentials;
  /** Connected accounts' access tokens, refreshed when due (main.ts's refresh sweep). */
  accessTokens: AccessTokens;
  /** Verified inbound events → stored events and deliveries (the webhook routes' and the poller's). */
  inboundEvents: InboundEvents;
  /** The delivery queue's operations (delivery/queue/index.ts). */
  deliveries: DeliveryQueue;
  /** Per-account provider subscriptions: the manager loop (main.ts starts it) and deleteForConnection. */
  subscriptions: SubscriptionManager;
  /** Tells this process's subscription manager that connections or trigger lists changed. */
  subscriptionSignal: WakeSignal;
  /** The node:http request listener: REST routes, /graphql, the console. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Hooks websockets (graphql-ws) onto a server that uses `handle`. */
  attach(server: Server): void;
  /** Ends live subscriptions (SSE and websockets) so the HTTP server can finish closing. */
  closeLive(): Promise<void>;
  /**
   * Shutdown has begun: /readyz fails, and every new request but /healthz is answered 503
   * `shutting_down` with `Connection: close`, so load balancers and keep-alive clients move on.
   */
  drain(): void;
  close(): Promise<void>;
}

/**
 * Builds the whole service from its dependencies: each capability from exactly what it needs, then
 * the routes and /graphql from the capabilities they use. Listening and background work are main.ts's.
 * Nothing is kept at module level: two apps in one process (tests) share nothing.
 */
export function buildApp(deps: AppDeps): App {
  const { config, logger, database, redis } = deps;
  const { prisma: db, sql } = database;
  const clock = deps.clock ?? systemClock;
  const box = createSecretBox(config.encryptionKey);
  const databaseOutage = createDatabaseOutage(sql, logger);
  // Redis relays live events and shares rate limits between instances; without it, this instance's memory does.
  const redisHealth = createRedisHealth(redis, logger);
  const onFallback = () => redisHealth.fellBack("rate_limit");
  const bus = createEventBus(redis, redisHealth);
  const operationsMetrics = createOperationsMetrics(sql, () => clock.now());
  const signal = createWakeSignal();
  // Deliveries recorded by this instance go straight to its own worker (delivery/handoff.ts).
  const handoff = createLocalHandoff();

  // Authentication: one per app, each owning what it remembers (src/auth/).
  const revocations = createRevocations();
  const accessCache = createAccessCache(revocations);
  const apiRateLimit = createRateLimit({ name: "api", points: config.rateLimitPerMinute, durationSeconds: 60, redis, onFallback });
  const sessions = createSessions({ prisma: db, sql, revocations, clock });
  const apiKeys = createApiKeys({
    prisma: db,
    revocations,
    rateLimit: apiRateLimit,
    clock,
    onError: (error) => logger.warn({ err: error }, "could not record API key use"),
  });
  const users = createUsers({
    db,
    clock,
    passwords: createPasswordHasher(config.passwordHashCost),
    sessions,
    loginGuard: createLoginGuard({
      perAddressPerHour: config.loginRateLimitPerAddressPerHour,
      perAccountAndAddress: config.loginRateLimitPer15Minutes,
      accountFreeFailures: config.loginAccountFreeFailures,
      redis,
      onFallback,
    }),
    signupLimit: createRateLimit({ name: "signup", points: config.signupRateLimitPerHour, durationSeconds: 3600, redis, onFallback }),
    signup: config.signup,
  });
  const organizations = createOrganizations({ db, box, revocations, creation: config.organizationCreation });

  // Connectors' credentials and inbound events: each a capability of what it needs (credentials/, forwarding/inbound.ts).
  const { connectorEnv } = config;
  const connectDeps = { config, db, box, logger, clock };
  const inboundSecrets = createInboundSecrets({ sql, box, connectorEnv, clock });
  const clientCredentials = createClientCredentials({ db, box, connectorEnv });
  const operatorCredentials = createOperatorCredentials({ db, box, inboundSecrets, clientOf: (def) => authModeOf(def).operatorClient });
  const verificationTokens = createVerificationTokens({ db, sql, box, connectorEnv, inboundSecrets });
  const recorder = createEventRecorder({ sql, recordingSql: database.recordingSql, clock, signal, bus, logger, handoff });
  // The connected account (connections/): its store (every write of its row), what this instance
  // remembers of rows in use, its polling health (read from the poller's table), lifecycle events
  // (switchyard.*, recorded and forwarded like a provider's), and its tokens.
  const store = createConnectionStore({ db, sql, box });
  const inUse = createConnectionsInUse(clock);
  let polledOnce: PolledPairs | undefined;
  const polled = () => (polledOnce ??= polledPairs(pollTargets(allConnectors(), config.pollIntervalMs)));
  const pollingHealth = createPollingHealth({ sql, pairs: polled });
  // The poll schedule's statements on the request pool: nudges and the due gauge (the poller builds its own on the worker's pool).
  const pollSchedule = createPollSchedule({ sql, pairs: polled });
  const lifecycle = createLifecycleEvents({ db, clock, logger, recordEvent: recorder.record, onChange: inUse.forget, pollingHealth: pollingHealth.read });
  const accessTokens = createAccessTokens({ config, db, box, logger, clientCredentials, store, lifecycle, clock });
  // Using a connection with the API key: its token, and the authenticated proxy (connections/).
  const connectionTokens = createConnectionTokens({ sql, box, clock, logger, accessTokens, inUse });

  // Per-account provider subscriptions (subscriptions/): the queue, the manager loop, their notifications.
  const subscriptionQueue = createSubscriptionQueue({ sql, clock });
  const subscriptionMetrics = createSubscriptionMetrics(sql);
  const grantRevocationMetrics = createGrantRevocationMetrics();
  const subscriptionSignal = createWakeSignal();
  const subscriptions = createSubscriptionManager({
    queue: subscriptionQueue, clock, logger, box, urlKey: config.encryptionKey, connectorEnv, publicUrl: config.publicUrl, accessTokens, connectors: allConnectors,
    allowHttpApiBase: config.env !== "production", metrics: subscriptionMetrics, signal: subscriptionSignal, databaseOutage,
    onFailed: async (failure) => {
      logger.warn({ ...failure }, "provider subscription failed for 24 hours");
      await lifecycle.emitFor(failure.connectedAccountId, "subscription_failed", { code: "subscription_failed", message: failure.error });
    },
  });
  const connectSettings = createConnectSettings({ db });
  // What each connection watches (connections/resources/): rows the subscription manager plans from.
  const resources = createResources({ db, store: createResourceStore({ sql }), clock, maxPerConnection: config.maxResourcesPerConnection, changed: () => subscriptions.changed() });
  const connectFlow = { ...connectDeps, clientCredentials, connectSettings, lifecycle, store, resources, credentialCheck: createCredentialCheck({ config }) };
  const connections = createConnections({
    db, sql, store, box, clock, logger, lifecycle, pollingHealth: pollingHealth.read,
    revoke: createRevocation({ connectorEnv, production: config.env === "production", clientCredentials, logger, metrics: grantRevocationMetrics }),
    // Its provider subscriptions go first, while its token still works.
    releaseSubscriptions: (connectedAccountId) => subscriptions.deleteForConnection(connectedAccountId),
  });
  const inboundEvents = createInboundEvents({
    sql, clock, connectorEnv, accessTokens, recordRoutedEvent: recorder.recordRouted,
    disconnect: async (deploymentId, connector, account) => {
      await connections.disconnect(deploymentId, { connector, account });
    },
  });
  const subscriptionNotifications = createSubscriptionNotifications({ sql, box, urlKey: config.encryptionKey, clock, connectorEnv, accessTokens, inboundEvents, queue: subscriptionQueue, metrics: subscriptionMetrics, clientCredentials, inboundSecrets, logger, signal: subscriptionSignal });
  // A notification that only names accounts (Dropbox) makes their connections due for the poller.
  const pollNudge = { nudge: (deploymentId: string, connector: string, externalIds: string[]) => pollSchedule.nudge(deploymentId, connector, externalIds, clock.now()) };
  const diskSpace = createDiskSpace(database.kind === "pglite" ? config.dataDir : undefined, config.minFreeDiskMb);
  const inboundWebhook = { config, logger, clock, metrics: operationsMetrics, inboundSecrets, verificationTokens, inboundEvents, subscriptionNotifications, pollNudge, diskSpace };
  // The delivery queue (delivery/queue/): one for requests, one over the worker's pool for the worker.
  const deliveryQueue = (sql: Database["sql"]) =>
    createDeliveryQueue({ sql, clock, signal, bus, logger, metrics: operationsMetrics, disableAfterMs: config.forwardingDisableAfterMs });
  const deliveries = deliveryQueue(sql);
  const allowPrivateTargets = config.env !== "production" || config.forwardingAllowPrivate;
  const forwarding = createForwarding({ db, sql, box, logger, deliveries, recorder, clock, allowPrivateTargets, diskSpace });

  const metrics = new Registry();
  // The event-loop lag series sample every 50 ms rather than prom-client's 10: its timer was half of an
  // idle instance's wake-ups (214 → 61 a second, 12 → 8 ms of CPU a second on PostgreSQL;
  // docs/benchmarks.md), and a stall that matters lasts longer than that.
  collectDefaultMetrics({ register: metrics, eventLoopMonitoringPrecision: 50 });
  operationsMetrics.registerOn(metrics);
  subscriptionMetrics.registerOn(metrics);
  grantRevocationMetrics.registerOn(metrics);
  redisHealth.registerOn(metrics);
  const pollMetrics = registerPollMetrics(metrics, () => pollSchedule.countDue(clock.now()), (error) => databaseOutage.noted(error));
  const bodies = createBodyGate({ maxInFlight: config.bodyMaxInFlight, maxPerAddress: config.bodyMaxInFlightPerAddress, timeoutMs: config.bodyTimeoutMs });
  new Gauge({
    name: "switchyard_live_subscriptions",
    help: "Open GraphQL subscriptions on this instance (graphql-ws and SSE)",
    registers: [metrics],
    collect() {
      this.set(bus.activeSubscriptions());
    },
  });

  const proxyRateLimit = createProxyRateLimit({ settings: connectSettings, clock, redis, onFallback });
  const proxy = createProxy({ config: deps.config, tokens: connectionTokens, logger, clock, metrics, rateLimit: proxyRateLimit });

  const routes: Route[] = [
    ...healthRoutes({ config, databaseKind: database.kind, databaseOutage, diskSpace, redisHealth, metrics }),
    getData({ sql, publicUrl: config.publicUrl, apiKeys }),
    ...connectionRoutes({ apiKeys, connections, resources, publicUrl: config.publicUrl }),
    ...consoleRoutes(db),
    getAuthUrl({ ...connectFlow, apiKeys }),
    ...connectRoutes(connectFlow),
    postInboundWebhook(inboundWebhook),
    getInboundWebhook(inboundWebhook),
    ...openApiRoutes(config),
    getConnectionToken(apiKeys, connectionTokens),
  ];

  // /graphql, built on its first request: resolvers reach these capabilities by name (graphql/context.ts), and nothing else.
  const graphql = createGraphQLEndpoint({
    config,
    logger,
    databaseOutage,
    bodies,
    origins: createOriginPolicy(config),
    userRateLimit: apiRateLimit,
    capabilities: {
      db,
      sql,
      logger,
      clock,
      settings: config,
      accessCache,
      sessions,
      apiKeys,
      users,
      organizations,
      signingSecrets: createSigningSecrets({ db, box, clock }),
      operatorCredentials,
      verificationTokens,
      deliveries,
      forwarding,
      subscriptions,
      connectSettings,
      connections,
      connectSessions: connectDeps,
      pollingHealth: pollingHealth.read,
      resources,
      lastEventAt: createLastEventAtLoader(sql),
      clientCredentials,
      live: { bus, revocations },
    },
  });
  const frontDoor = createFrontDoor({
    config,
    logger,
    databaseOutage,
    bodies,
    countRequest: createRequestMetrics(metrics, bodies),
    match: createRouter(routes),
    proxy: { serve: createProxyEndpoint({ apiKeys, proxy, bodies, trustProxyHops: config.trustProxyHops }), route: PROXY_ROUTE, problemHeaders: PROXY_PROBLEM_HEADERS },
    graphql,
  });
  let closingLive: Promise<void> | undefined;
  const closeLive = () => (closingLive ??= bus.close().then(() => graphql.closeLive()));

  return {
    config,
    logger,
    box,
    bus,
    databaseOutage,
    recorder,
    inboundSecrets,
    clientCredentials,
    accessTokens,
    inboundEvents,
    deliveries,
    subscriptions,
    subscriptionSignal,
    ...createBackgroundWork({ config, logger, clock, database, box, databaseOutage, deliveryQueue, operationsMetrics, signal, accessTokens, inboundEvents, inboundSecrets, pollMetrics, lifecycle, handoff, diskSpace }),
    handle: frontDoor.handle,
    attach: graphql.attach,
    closeLive,
    drain: frontDoor.drain,
    close: async () => {
      await closeLive();
      await proxy.close();
      databaseOutage.close();
      await graphql.dispose();
    },
  };
}
