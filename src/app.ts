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
import { asProblem, HttpProblem, internalErrorProblem, problemResponse } from "./http/problem.ts";
import { createRouter } from "./http/router.ts";
import type { HttpRequest, Route } from "./http/types.ts";
import { SESSION_COOKIE } from "./auth/principal.ts";
import { consoleRoutes } from "./rest/console.ts";
import { getData } from "./rest/getData.ts";
import { getAuthUrl } from "./rest/getAuthUrl.ts";
import { connectRoutes } from "./rest/connect/index.ts";
import { healthRoutes } from "./rest/health.ts";
import { getInboundWebhook, postInboundWebhook } from "./rest/postInboundWebhook.ts";
import { openApiRoutes } from "./openapi/routes.ts";
import { createServices, type Services } from "./services.ts";
import { type Clock, systemClock } from "./clock.ts";
import { type ClientCredentials, createClientCredentials } from "./credentials/clientCredentials.ts";
import { createInboundSecrets, type InboundSecrets } from "./credentials/inboundSecrets.ts";
import { createOperatorCredentials } from "./credentials/operatorCredentials.ts";
import { createVerificationTokens } from "./credentials/verificationTokens.ts";
import { createInboundEvents, type InboundEvents } from "./forwarding/inbound.ts";
import { recordEvent, recordRoutedEvent } from "./forwarding/record.ts";
import { type AccessTokens, createAccessTokens } from "./oauth/tokens.ts";
import { createDeliveryQueue, type DeliveryQueue } from "./delivery/queue/index.ts";
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from "./delivery/worker.ts";
import { createConnections } from "./connections/connections.ts";
import { createLifecycleEvents } from "./connections/lifecycle.ts";
import { createRevocation } from "./connections/revoke.ts";
import { connectionRoutes } from "./rest/connectionRoutes.ts";
import { createPoller, type Poller, registerPollMetrics } from "./polling/poller.ts";
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
  services: Services;
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
  /** A delivery worker working this app's queue over the worker's own database pool (main.ts starts one). */
  createDeliveryWorker(options?: DeliveryWorkerOptions): DeliveryWorker;
  /** A poller reading this app's polled connections every POLL_INTERVAL over the worker's pool (main.ts starts one). */
  createPoller(): Poller;
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

/** Builds the whole service from its dependencies. Listening and background work are main.ts's. */
export function buildApp(deps: AppDeps): App {
  const services = createServices(deps.config, deps.logger, deps.database, deps.redis);
  const { logger } = services;
  const clock = deps.clock ?? systemClock;
  // Authentication: one per app, each owning what it remembers (src/auth/).
  const sessions = createSessions({ prisma: deps.database.prisma, sql: deps.database.sql, revocations: services.revocations, clock });
  const apiKeys = createApiKeys({
    prisma: deps.database.prisma,
    revocations: services.revocations,
    rateLimit: services.rateLimits.api,
    clock,
    onError: (error) => logger.warn({ err: error }, "could not record API key use"),
  });

  // Connectors' credentials and inbound events: each a capability of what it needs (credentials/, oauth/, forwarding/inbound.ts).
  const { db, sql, box } = services;
  const { connectorEnv } = deps.config;
  const inboundSecrets = createInboundSecrets({ sql, box, connectorEnv, clock });
  const clientCredentials = createClientCredentials({ db, box, connectorEnv });
  const operatorCredentials = createOperatorCredentials({ db, box, inboundSecrets });
  const verificationTokens = createVerificationTokens({ db, sql, box, connectorEnv, inboundSecrets });
  // Connection lifecycle events (switchyard.connection_*), recorded and forwarded like a provider's.
  const lifecycle = createLifecycleEvents({ db, clock, logger, recordEvent: (deploymentId, event) => recordEvent(services, deploymentId, event) });
  const accessTokens = createAccessTokens({ config: deps.config, db, box, logger, clientCredentials, lifecycle });
  const inboundEvents = createInboundEvents({
    sql,
    db,
    connectorEnv,
    accessTokens,
    recordRoutedEvent: (deploymentId, event) => recordRoutedEvent(services, deploymentId, event),
  });
  const inboundWebhook = { config: deps.config, logger, clock, metrics: services.operationsMetrics, inboundSecrets, verificationTokens, inboundEvents };
  // The delivery queue (delivery/queue/): one for requests, one over the worker's pool for the worker.
  const deliveryQueue = (sql: typeof services.sql) =>
    createDeliveryQueue({
      sql,
      clock,
      signal: services.deliverySignal,
      bus: services.events,
      logger,
      metrics: services.operationsMetrics,
      disableAfterMs: deps.config.forwardingDisableAfterMs,
    });
  const deliveries = deliveryQueue(services.sql);
  const connections = createConnections({
    db,
    sql,
    box,
    clock,
    logger,
    revoke: createRevocation({ connectorEnv, production: deps.config.env === "production", clientCredentials, logger }),
    lifecycle,
    // Wired to subscriptions.deleteForConnection when it lands.
    releaseSubscriptions: async () => {},
  });
  const capabilities = { operatorCredentials, verificationTokens, sessions, apiKeys, deliveries, connections };

  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  services.operationsMetrics.registerOn(metrics);
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

  services.redisHealth.registerOn(metrics);
  const pollMetrics = registerPollMetrics(metrics, () => countDue(sql, clock.now()), (error) => services.databaseOutage.noted(error));
  let draining = false;
  const bodies = createBodyGate({
    maxInFlight: deps.config.bodyMaxInFlight,
    maxPerAddress: deps.config.bodyMaxInFlightPerAddress,
    timeoutMs: deps.config.bodyTimeoutMs,
  });
  new Gauge({
    name: "switchyard_http_bodies_in_flight",
    help: "Request bodies being received now on this instance (bounded by BODY_MAX_IN_FLIGHT)",
    registers: [metrics],
    collect() {
      this.set(bodies.inFlight());
    },
  });

  const routes: Route[] = [
    ...healthRoutes(services, metrics),
    getData(services, apiKeys),
    ...connectionRoutes({ apiKeys, connections, publicUrl: deps.config.publicUrl }),
    ...consoleRoutes(services),
    getAuthUrl(services, apiKeys, clientCredentials),
    ...connectRoutes({ config: deps.config, db, box, logger, clientCredentials, lifecycle }),
    postInboundWebhook(inboundWebhook),
    getInboundWebhook(inboundWebhook),
    ...openApiRoutes(services),
  ];
  const match = createRouter(routes);
  const origins = createOriginPolicy(deps.config);
  const yoga = createGraphQLServer(services, origins, capabilities);
  const serveJsonPost = createJsonPostHandler(yoga, origins);
  new Gauge({
    name: "switchyard_live_subscriptions",
    help: "Open GraphQL subscriptions on this instance (graphql-ws and SSE)",
    registers: [metrics],
    collect() {
      this.set(services.events.activeSubscriptions());
    },
  });
  let sockets: ReturnType<typeof attachGraphQLWebSockets> | undefined;
  let closingLive: Promise<void> | undefined;
  const closeLive = () =>
    (closingLive ??= (async () => {
      await services.events.close();
      await sockets?.close();
    })());

  /** Serves the request; `matched.route` is set to the route pattern as soon as one matches (the metrics label). */
  async function route(req: IncomingMessage, res: ServerResponse, url: URL, matched: { route: string }): Promise<void> {
    if (url.pathname === "/graphql") {
      matched.route = "/graphql";
      // Before anything is read or run: cross-site requests must not ride on the session cookie.
      const refusal = refuseGraphQLRequest(origins, req.method ?? "GET", req.headers);
      if (refusal) {
        writeResponse(res, refusal);
        return;
      }
      const ip = clientIp(req, services.config.trustProxyHops);
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
    if (!found) throw new AppError("NOT_FOUND", `Nothing is served at ${url.pathname}.`);
    if ("methodNotAllowed" in found) throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed here.`);
    refuseNulInRequest(url, found.params);
    const ip = clientIp(req, services.config.trustProxyHops);
    const request: HttpRequest = {
      method: req.method ?? "GET",
      url,
      headers: req.headers,
      params: found.params,
      ip,
      body: (limit) => bodies.read(req, ip, limit),
    };
    writeResponse(res, await found.handler(request));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    let url: URL;
    try {
      url = new URL(req.url ?? "/", services.config.publicUrl);
    } catch {
      writeResponse(res, problemResponse(new HttpProblem(400, "invalid_request", "The request URL is malformed.")));
      return;
    }
    // Label by route pattern, never the raw path: ids and junk in paths would explode the series.
    const matched = { route: "unmatched" };
    if (draining && url.pathname !== "/healthz") {
      res.shouldKeepAlive = false;
      writeResponse(
        res,
        problemResponse(
          new HttpProblem(503, "shutting_down", "This instance is shutting down; send the request again (another instance will take it).", {
            connection: "close",
            "retry-after": "1",
          }),
        ),
      );
      requests.inc({ route: matched.route, status: "503" });
      return;
    }
    let status: string | undefined;
    route(req, res, url, matched)
      .catch((error: unknown) => {
        if (error instanceof ClientAbortedError) {
          // Not a failure of ours: the client hung up mid-upload. Counted as nginx's 499.
          logger.debug({ method: req.method, path: url.pathname }, "client closed the connection before its request body arrived");
          status = "499";
          res.destroy();
          return;
        }
        // A database outage is not a bug: 503 with Retry-After, one warning per outage (db/outage.ts).
        const problem = asProblem(error) ?? (services.databaseOutage.noted(error) ? asProblem(databaseUnavailable(DATABASE_RETRY_AFTER_SECONDS)) : undefined);
        if (!problem) logger.error({ err: error, method: req.method, path: url.pathname }, "unexpected error");
        if (res.headersSent) {
          res.destroy();
        } else {
          writeResponse(res, problemResponse(problem ?? internalErrorProblem()));
        }
      })
      .then(() => {
        requests.inc({ route: matched.route, status: status ?? String(res.statusCode) });
        duration.observe({ route: matched.route }, Number(process.hrtime.bigint() - started) / 1e9);
      });
  }

  return {
    services,
    inboundSecrets,
    clientCredentials,
    accessTokens,
    inboundEvents,
    deliveries,
    createDeliveryWorker: (options) =>
      createDeliveryWorker(
        {
          queue: deliveryQueue(services.database.workerSql),
          clock,
          config: deps.config,
          logger,
          box: services.box,
          metrics: services.operationsMetrics,
          signal: services.deliverySignal,
          databaseOutage: services.databaseOutage,
        },
        options,
      ),
    createPoller: () =>
      createPoller(
        {
          sql: services.database.workerSql,
          clock,
          logger,
          connectorEnv,
          accessTokens,
          inboundEvents,
          inboundSecrets,
          databaseOutage: services.databaseOutage,
          metrics: pollMetrics,
        },
        { intervalMs: deps.config.pollIntervalMs },
      ),
    handle,
    attach: (server) => {
      sockets = attachGraphQLWebSockets(server, services, yoga, origins, capabilities);
    },
    closeLive,
    drain: () => {
      draining = true;
    },
    close: async () => {
      await closeLive();
      services.databaseOutage.close();
      await yoga.dispose();
    },
  };
}
