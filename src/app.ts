import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import { attachGraphQLWebSockets } from "./graphql/websockets.ts";
import { createGraphQLServer } from "./graphql/yoga.ts";
import { clientIp, readBody, writeFetchResponse, writeResponse } from "./http/node.ts";
import { asProblem, HttpProblem, internalErrorProblem, problemResponse } from "./http/problem.ts";
import { createRouter } from "./http/router.ts";
import type { HttpRequest, Route } from "./http/types.ts";
import { consoleRoutes } from "./rest/console.ts";
import { getData } from "./rest/getData.ts";
import { getAuthUrl } from "./rest/getAuthUrl.ts";
import { connectRoutes } from "./rest/connect/index.ts";
import { healthRoutes } from "./rest/health.ts";
import { postInboundWebhook } from "./rest/postInboundWebhook.ts";
import { createServices, type Services } from "./services.ts";

export interface AppDeps {
  config: Config;
  logger: Logger;
  database: Database;
  redis?: Redis;
}

export interface App {
  services: Services;
  /** The node:http request listener: REST routes, /graphql, the console. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Hooks websockets (graphql-ws) onto a server that uses `handle`. */
  attach(server: Server): void;
  /** Ends live subscriptions (SSE and websockets) so the HTTP server can finish closing. */
  closeLive(): Promise<void>;
  close(): Promise<void>;
}

export const GRAPHQL_BODY_LIMIT = 1024 * 1024;

/** Builds the whole service from its dependencies. Listening and background work are main.ts's. */
export function buildApp(deps: AppDeps): App {
  const services = createServices(deps.config, deps.logger, deps.database, deps.redis);
  const { logger } = services;

  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
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

  const routes: Route[] = [...healthRoutes(services, metrics), getData(services), ...consoleRoutes(services), getAuthUrl(services), ...connectRoutes(services), postInboundWebhook(services)];
  const match = createRouter(routes);
  const yoga = createGraphQLServer(services);
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

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<string> {
    if (url.pathname === "/graphql") {
      // Buffered here so the body limit applies before yoga parses anything.
      const body = req.method === "POST" ? await readBody(req, GRAPHQL_BODY_LIMIT) : undefined;
      const response = await yoga.fetch(
        url,
        { method: req.method, headers: req.headers as Record<string, string>, body: body as BodyInit | undefined },
        { ip: clientIp(req) },
      );
      await writeFetchResponse(res, response);
      return "/graphql";
    }
    const found = match(req.method ?? "GET", url.pathname);
    if (!found) throw new HttpProblem(404, "not_found", `Nothing is served at ${url.pathname}.`);
    if ("methodNotAllowed" in found) throw new HttpProblem(405, "method_not_allowed", `${req.method} is not allowed here.`);
    const request: HttpRequest = {
      method: req.method ?? "GET",
      url,
      headers: req.headers,
      params: found.params,
      ip: clientIp(req),
      body: (limit) => readBody(req, limit),
    };
    writeResponse(res, await found.handler(request));
    return url.pathname;
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
    route(req, res, url)
      .catch((error: unknown) => {
        const problem = asProblem(error);
        if (!problem) logger.error({ err: error, method: req.method, path: url.pathname }, "unexpected error");
        if (res.headersSent) {
          res.destroy();
        } else {
          writeResponse(res, problemResponse(problem ?? internalErrorProblem()));
        }
        return "error";
      })
      .then((label) => {
        // Label by route pattern, never the raw path: ids in paths would explode the series.
        const routeLabel = label === url.pathname && !url.pathname.startsWith("/graphql") ? routeName(url.pathname) : label;
        requests.inc({ route: routeLabel, status: String(res.statusCode) });
        duration.observe({ route: routeLabel }, Number(process.hrtime.bigint() - started) / 1e9);
      });
  }

  return {
    services,
    handle,
    attach: (server) => {
      sockets = attachGraphQLWebSockets(server, services, yoga);
    },
    closeLive,
    close: async () => {
      await closeLive();
      await yoga.dispose();
    },
  };
}

function routeName(pathname: string): string {
  const first = pathname.split("/").slice(0, 3).join("/");
  return first.length > 40 ? first.slice(0, 40) : first;
}
