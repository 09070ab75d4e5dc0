import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { createApiKeys } from "./auth/apiKeys.ts";
import { createSessions } from "./auth/sessions.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { createOriginPolicy, refuseGraphQLRequest } from "./graphql/requestGuard.ts";
import { attachGraphQLWebSockets } from "./graphql/websockets.ts";
import { createJsonPostHandler, refusedRequestResponse } from "./graphql/jsonPost.ts";
import { createGraphQLServer } from "./graphql/yoga.ts";
import { createBodyGate } from "./http/bodyGate.ts";
import { ClientAbortedError, clientIp, writeFetchResponse, writeResponse } from "./http/node.ts";
import { refuseNulInRequest } from "./http/inputGuard.ts";
import { DATABASE_RETRY_AFTER_SECONDS } from "./db/outage.ts";
import { AppError, databaseUnavailable } from "./errors.ts";
import { asProblem, internalErrorProblem, problemResponse } from "./http/problem.ts";
import { createRouter } from "./http/router.ts";
import type { HttpRequest, Route } from "./http/types.ts";
import { SESSION_COOKIE } from "./auth/principal.ts";
import { consoleRoutes } from "./rest/console.ts";
import { getData } from "./rest/getData.ts";
import { getAuthUrl } from "./rest/getAuthUrl.ts";
import { createConnectSettings } from "./connections/connectSettings.ts";
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
import { createContexts } from "./graphql/context.ts";
import { createOrganizations } from "./organizations/organizations.ts";
import { createRateLimit } from "./ratelimit/limiter.ts";
import { createRetentionJob, type RetentionJob, type RetentionOptions } from "./retention/prune.ts";
import { getConnectionToken } from "./rest/getConnectionToken.ts";
import { createProxyEndpoint, PROXY_PROBLEM_HEADERS, PROXY_ROUTE } from "./rest/proxy.ts";
import { createConnectionTokens } from "./connections/token.ts";
import { createProxy } from "./connections/proxy.ts";
import { type Clock, systemClock } from "./clock.ts";
import { type ClientCredentials, createClientCredentials } from "./credentials/clientCredentials.ts";
import { createInboundSecrets, type InboundSecrets } from "./credentials/inboundSecrets.ts";
import { createOperatorCredentials } from "./credentials/operatorCredentials.ts";
import { createVerificationTokens } from "./credentials/verificationTokens.ts";
import { createInboundEvents, type InboundEvents } from "./forwarding/inbound.ts";
import { createEventRecorder, type EventRecorder } from "./forwarding/record.ts";
import { type AccessTokens, createAccessTokens } from "./oauth/tokens.ts";
import { createDeliveryQueue, type DeliveryQueue } from "./delivery/queue/index.ts";
import { createLocalHandoff } from "./delivery/handoff.ts";
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from "./delivery/worker.ts";
import { connectors } from "./connectors/registry.ts";
import { createSubscriptionManager, type SubscriptionManager } from "./subscriptions/manager.ts";
import { createSubscriptionMetrics } from "./subscriptions/metrics.ts";
import { createSubscriptionNotifications } from "./subscriptions/notifications.ts";
import { createSubscriptionQueue } from "./subscriptions/queue/index.ts";
import { createConnections } from "./connections/connections.ts";
import { createLifecycleEvents } from "./connections/lifecycle.ts";
import { createRevocation } from "./connections/revoke.ts";
import { connectionRoutes } from "./rest/connectionRoutes.ts";
import { createPoller, type Poller, registerPollMetrics } from "./polling/poller.ts";
import { nudge as nudgePolls } from "./polling/queue/index.ts";
import { countDue } from "./polling/queue/due.ts";

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  redis?: Redis;
  /** What decides by the time reads it here; tests pass a fake one (test/helpers/clock.ts). */
  clock?: Clock;
}

export interface App {
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
  /** A delivery worker working this app's queue over the worker's own database pool (main.ts starts one). */
  createDeliveryWorker(options?: DeliveryWorkerOptions): DeliveryWorker;
  /** A poller reading this app's polled connections every POLL_INTERVAL over the worker's pool (main.ts starts one). */
  createPoller(): Poller;
  /** Deletes what is older than RETENTION_DAYS, in batches (main.ts starts one). */
  createRetentionJob(options?: RetentionOptions): RetentionJob;
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

export const GRAPHQL_BODY_LIMIT = 1024 * 1024;
/**
 * The body limit of a /graphql request that carries no credential at all (no API key, bearer token
 * or session cookie): what an anonymous caller may run (signUp, logIn, viewer) fits many times over,
 * and a stranger cannot make the service buffer a full GRAPHQL_BODY_LIMIT before knowing who it is.
 */
export const GRAPHQL_ANONYMOUS_BODY_LIMIT = 64 * 1024;

const carriesCredentials = (headers: IncomingMessage["headers"]) =>
  Boolean(headers["x-api-key"] || headers.authorization || headers.cookie?.includes(SESSION_COOKIE));

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

  // Connectors' credentials and inbound events: each a capability of what it needs (credentials/, oauth/, forwarding/inbound.ts).
  const { connectorEnv } = config;
  const oauth = { config, db, box, logger };
  const inboundSecrets = createInboundSecrets({ sql, box, connectorEnv, clock });
  const clientCredentials = createClientCredentials({ db, box, connectorEnv });
  const operatorCredentials = createOperatorCredentials({ db, box, inboundSecrets });
  const verificationTokens = createVerificationTokens({ db, sql, box, connectorEnv, inboundSecrets });
  const recorder = createEventRecorder({ sql, clock, signal, bus, logger, handoff });
  // Connection lifecycle events (switchyard.connection_*), recorded and forwarded like a provider's.
  const lifecycle = createLifecycleEvents({ db, clock, logger, recordEvent: recorder.record, onChange: (id) => connectionTokens.forget(id) });
  const accessTokens = createAccessTokens({ ...oauth, clientCredentials, lifecycle, clock });
  // Using a connection with the API key: its token, and the authenticated proxy (connections/).
  const connectionTokens = createConnectionTokens({ sql, box, clock, logger, accessTokens });
  const inboundEvents = createInboundEvents({
    sql,
    db,
    clock,
    connectorEnv,
    accessTokens,
    recordRoutedEvent: recorder.recordRouted,
    // `connections` is built below; this runs only when an event arrives, long after.
    disconnect: async (deploymentId, connector, account) => {
      await connections.disconnect(deploymentId, { connector, account });
    },
  });

  // Per-account provider subscriptions (subscriptions/): the queue, the manager loop, their notifications.
  const subscriptionQueue = createSubscriptionQueue({ sql, clock });
  const subscriptionMetrics = createSubscriptionMetrics(sql);
  const subscriptionSignal = createWakeSignal();
  const subscriptions = createSubscriptionManager({
    queue: subscriptionQueue,
    clock,
    logger,
    box,
    connectorEnv,
    allowHttpApiBase: config.env !== "production",
    publicUrl: config.publicUrl,
    accessTokens,
    metrics: subscriptionMetrics,
    signal: subscriptionSignal,
    connectors,
    onFailed: async (failure) => {
      logger.warn({ ...failure }, "provider subscription failed for 24 hours");
      await lifecycle.emitFor(failure.connectedAccountId, "subscription_failed", { code: "subscription_failed", message: failure.error });
    },
  });
  const subscriptionNotifications = createSubscriptionNotifications({ sql, box, clock, connectorEnv, accessTokens, inboundEvents, queue: subscriptionQueue, metrics: subscriptionMetrics, clientCredentials, inboundSecrets, logger, signal: subscriptionSignal });
  // A notification that only names accounts (Dropbox) makes their connections due for the poller.
  const pollNudge = { nudge: (deploymentId: string, connector: string, externalIds: string[]) => nudgePolls(sql, deploymentId, connector, externalIds, clock.now()) };
  const inboundWebhook = { config, logger, clock, metrics: operationsMetrics, inboundSecrets, verificationTokens, inboundEvents, subscriptionNotifications, pollNudge };

  // The delivery queue (delivery/queue/): one for requests, one over the worker's pool for the worker.
  const deliveryQueue = (sql: Database["sql"]) =>
    createDeliveryQueue({ sql, clock, signal, bus, logger, metrics: operationsMetrics, disableAfterMs: config.forwardingDisableAfterMs });
  const deliveries = deliveryQueue(sql);
  const forwarding = createForwarding({
    db,
    sql,
    box,
    logger,
    deliveries,
    recorder,
    allowPrivateTargets: config.env !== "production" || config.forwardingAllowPrivate,
  });
  const connectSettings = createConnectSettings({ db });
  const connectFlow = { ...oauth, clientCredentials, connectSettings, lifecycle, credentialCheck: createCredentialCheck({ config }) };
  const connections = createConnections({
    db,
    sql,
    box,
    clock,
    logger,
    revoke: createRevocation({ connectorEnv, production: config.env === "production", clientCredentials, logger }),
    lifecycle,
    // Its provider subscriptions go first, while its token still works.
    releaseSubscriptions: (connectedAccountId) => subscriptions.deleteForConnection(connectedAccountId),
  });

  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  operationsMetrics.registerOn(metrics);
  subscriptionMetrics.registerOn(metrics);
  const requests = new Counter({
    name: "switchyard_http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["route", "status"] as const,
    registers: [metrics],
  });
  const duration = new Histogram({
    name: "switchyard_http_request_duration_seconds",
    help: "HTTP request duration by route",
    labelNames: ["route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics],
  });
  // prom-client hashes a label object on every call: each route's series are looked up once (bounded:
  // routes are patterns, statuses are HTTP codes).
  const routeSeries = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>();
  function countRequest(route: string, status: string, seconds?: number): void {
    const key = `${route} ${status}`;
    let series = routeSeries.get(key);
    if (!series) {
      series = { count: requests.labels({ route, status }), time: duration.labels({ route }) };
      routeSeries.set(key, series);
    }
    series.count.inc();
    if (seconds !== undefined) series.time.observe(seconds);
  }

  redisHealth.registerOn(metrics);
  const pollMetrics = registerPollMetrics(metrics, () => countDue(sql, clock.now()), (error) => databaseOutage.noted(error));
  let draining = false;
  const bodies = createBodyGate({
    maxInFlight: config.bodyMaxInFlight,
    maxPerAddress: config.bodyMaxInFlightPerAddress,
    timeoutMs: config.bodyTimeoutMs,
  });
  new Gauge({
    name: "switchyard_http_bodies_in_flight",
    help: "Request bodies being received now on this instance (bounded by BODY_MAX_IN_FLIGHT)",
    registers: [metrics],
    collect() {
      this.set(bodies.inFlight());
    },
  });

  const proxy = createProxy({ config: deps.config, tokens: connectionTokens, logger, clock, metrics });

  const routes: Route[] = [
    ...healthRoutes({ config, databaseKind: database.kind, databaseOutage, redisHealth, metrics }),
    getData({ sql, publicUrl: config.publicUrl, apiKeys }),
    ...connectionRoutes({ apiKeys, connections, publicUrl: config.publicUrl }),
    ...consoleRoutes(db),
    getAuthUrl({ ...connectFlow, apiKeys }),
    ...connectRoutes(connectFlow),
    postInboundWebhook(inboundWebhook),
    getInboundWebhook(inboundWebhook),
    ...openApiRoutes(config),
    getConnectionToken(apiKeys, connectionTokens),
  ];
  const match = createRouter(routes);
  const serveProxy = createProxyEndpoint({ apiKeys, proxy, bodies, trustProxyHops: config.trustProxyHops });

  // /graphql: resolvers reach these capabilities by name (graphql/context.ts), and nothing else.
  const contexts = createContexts(
    {
      db,
      sql,
      logger,
      settings: config,
      accessCache,
      sessions,
      apiKeys,
      users,
      organizations,
      signingSecrets: createSigningSecrets({ db, box }),
      operatorCredentials,
      verificationTokens,
      deliveries,
      forwarding,
      subscriptions,
      connectSettings,
      connections,
      oauth,
      clientCredentials,
      live: { bus, revocations },
    },
    apiRateLimit,
  );
  const origins = createOriginPolicy(config);
  const yoga = createGraphQLServer({ config, logger, databaseOutage, origins, contexts });
  const serveJsonPost = createJsonPostHandler(yoga, origins);
  new Gauge({
    name: "switchyard_live_subscriptions",
    help: "Open GraphQL subscriptions on this instance (graphql-ws and SSE)",
    registers: [metrics],
    collect() {
      this.set(bus.activeSubscriptions());
    },
  });
  let sockets: ReturnType<typeof attachGraphQLWebSockets> | undefined;
  let closingLive: Promise<void> | undefined;
  const closeLive = () =>
    (closingLive ??= (async () => {
      await bus.close();
      await sockets?.close();
    })());

  /** Serves the request; `matched.route` is set to the route pattern as soon as one matches (the metrics label). */
  async function route(req: IncomingMessage, res: ServerResponse, url: URL, matched: { route: string; problemHeaders?: Record<string, string> }): Promise<void> {
    if (url.pathname === "/graphql") {
      matched.route = "/graphql";
      // Before anything is read or run: cross-site requests must not ride on the session cookie.
      const refusal = refuseGraphQLRequest(origins, req.method ?? "GET", req.headers);
      if (refusal) {
        writeResponse(res, refusal);
        return;
      }
      const ip = clientIp(req, config.trustProxyHops);
      // Buffered here so the body limit applies before yoga parses anything.
      const limit = carriesCredentials(req.headers) ? GRAPHQL_BODY_LIMIT : GRAPHQL_ANONYMOUS_BODY_LIMIT;
      const body = req.method === "POST" ? await bodies.read(req, ip, limit) : undefined;
      // Plain JSON POSTs (the console, API clients) skip yoga's fetch layer; the rest goes through it.
      if (body && (await serveJsonPost(req, res, url, body, ip))) return;
      try {
        const response = await yoga.fetch(url, { method: req.method, headers: req.headers as Record<string, string>, body: body as BodyInit | undefined }, { ip });
        await writeFetchResponse(res, response);
      } catch (error) {
        // Malformed params yoga throws instead of answering: its 400, not a 500.
        const refused = refusedRequestResponse(error);
        if (!refused || res.headersSent) throw error;
        await writeFetchResponse(res, refused);
      }
      return;
    }
    const found = match(req.method ?? "GET", url.pathname);
    if (found) matched.route = found.pattern;
    if (found && "handler" in found) matched.problemHeaders = found.problemHeaders;
    if (!found) throw new AppError("NOT_FOUND", `Nothing is served at ${url.pathname}.`);
    if ("methodNotAllowed" in found) throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed here.`);
    refuseNulInRequest(url, found.params);
    const ip = clientIp(req, config.trustProxyHops);
    const request: HttpRequest = {
      method: req.method ?? "GET",
      url,
      headers: req.headers,
      params: found.params,
      ip,
      body: (limit) => bodies.read(req, ip, limit),
      stream: () => req,
    };
    writeResponse(res, await found.handler(request));
  }

  const proxied = { route: PROXY_ROUTE, problemHeaders: PROXY_PROBLEM_HEADERS } as const;

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    // The authenticated proxy first, on node's own request and response: its hot path (bench/proxy).
    const proxying = draining ? undefined : serveProxy(req, res);
    if (proxying) {
      settle(req, res, proxying, proxied, () => (req.url ?? "/").split("?")[0], started);
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? "/", config.publicUrl);
    } catch {
      writeResponse(res, problemResponse(asProblem(new AppError("INVALID_REQUEST", "The request URL is malformed."))!));
      return;
    }
    // Label by route pattern, never the raw path: ids and junk in paths would explode the series.
    const matched: { route: string; problemHeaders?: Record<string, string> } = { route: "unmatched" };
    if (draining && url.pathname !== "/healthz") {
      res.shouldKeepAlive = false;
      writeResponse(
        res,
        problemResponse(
          asProblem(
            new AppError("SHUTTING_DOWN", "This instance is shutting down; send the request again (another instance will take it).", {
              retryAfterSeconds: 1,
              headers: { connection: "close" },
            }),
          )!,
        ),
      );
      countRequest(matched.route, "503");
      return;
    }
    settle(req, res, route(req, res, url, matched), matched, () => url.pathname, started);
  }

  /** Answers what `serving` throws (a problem, or a 500 logged), then counts the request by its route pattern. */
  function settle(
    req: IncomingMessage,
    res: ServerResponse,
    serving: Promise<void>,
    matched: { route: string; problemHeaders?: Record<string, string> },
    pathname: () => string,
    started: bigint,
  ): void {
    let status: string | undefined;
    serving
      .catch((error: unknown) => {
        if (error instanceof ClientAbortedError) {
          // Not a failure of ours: the client hung up mid-upload. Counted as nginx's 499.
          logger.debug({ method: req.method, path: pathname() }, "client closed the connection before its request body arrived");
          status = "499";
          res.destroy();
          return;
        }
        // A database outage is not a bug: 503 with Retry-After, one warning per outage (db/outage.ts).
        const problem = asProblem(error) ?? (databaseOutage.noted(error) ? asProblem(databaseUnavailable(DATABASE_RETRY_AFTER_SECONDS)) : undefined);
        if (!problem) logger.error({ err: error, method: req.method, path: pathname() }, "unexpected error");
        if (res.headersSent) {
          res.destroy();
        } else {
          const answer = problemResponse(problem ?? internalErrorProblem());
          writeResponse(res, { ...answer, headers: { ...answer.headers, ...matched.problemHeaders } });
        }
      })
      .then(() => {
        countRequest(matched.route, status ?? String(res.statusCode), Number(process.hrtime.bigint() - started) / 1e9);
      });
  }

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
    createDeliveryWorker: (options) =>
      createDeliveryWorker(
        {
          queue: deliveryQueue(database.workerSql),
          clock,
          config,
          logger,
          box,
          metrics: operationsMetrics,
          signal,
          databaseOutage,
          handoff,
        },
        options,
      ),
    createPoller: () =>
      createPoller(
        {
          sql: database.workerSql,
          clock,
          logger,
          connectorEnv,
          allowHttpApiBase: config.env !== "production",
          accessTokens,
          inboundEvents,
          inboundSecrets,
          databaseOutage,
          metrics: pollMetrics,
        },
        { intervalMs: config.pollIntervalMs },
      ),
    createRetentionJob: (options) => createRetentionJob({ sql, retentionDays: config.retentionDays, logger, clock }, options),
    handle,
    attach: (server) => {
      sockets = attachGraphQLWebSockets(server, { config, yoga, origins, contexts });
    },
    closeLive,
    drain: () => {
      draining = true;
    },
    close: async () => {
      await closeLive();
      await proxy.close();
      databaseOutage.close();
      await yoga.dispose();
    },
  };
}
