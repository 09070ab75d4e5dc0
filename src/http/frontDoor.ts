import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { DatabaseOutage } from "../db/outage.ts";
import { AppError } from "../errors.ts";
import type { BodyGate } from "./bodyGate.ts";
import { refuseNulInRequest } from "./inputGuard.ts";
import { ClientAbortedError, clientIp, writeResponse } from "./node.ts";
import { asProblem, internalErrorProblem, problemResponse } from "./problem.ts";
import type { CountRequest } from "./requestMetrics.ts";
import type { createRouter } from "./router.ts";
import type { HttpRequest } from "./types.ts";

/** What a request matched: the route pattern (the metrics label) and headers its problems carry. */
interface Matched {
  route: string;
  problemHeaders?: Record<string, string>;
}

export interface FrontDoorDeps {
  config: { publicUrl: string; trustProxyHops: number };
  logger: Logger;
  databaseOutage: DatabaseOutage;
  bodies: BodyGate;
  countRequest: CountRequest;
  /** The REST routes (./router.ts). */
  match: ReturnType<typeof createRouter>;
  /** The authenticated proxy on node's own request and response, when the request is one of its (rest/proxy.ts). */
  proxy: { serve(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined; route: string; problemHeaders: Record<string, string> };
  /** /graphql and its websockets (graphql/endpoint.ts). */
  graphql: { serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> };
}

/**
 * The node:http request listener: the proxy first (its hot path), then /graphql, then the REST
 * routes; every failure answered as problem+json (a database outage as 503, anything unexpected as
 * a logged 500); every request counted by its route pattern. `drain()` starts shutdown: from then
 * on /readyz fails and every request but /healthz is answered 503 `shutting_down` with `Connection: close`.
 */
export function createFrontDoor({ config, logger, databaseOutage, bodies, countRequest, match, proxy, graphql }: FrontDoorDeps) {
  let draining = false;
  const proxied: Matched = { route: proxy.route, problemHeaders: proxy.problemHeaders };

  /** Serves the request; `matched.route` is set to the route pattern as soon as one matches (the metrics label). */
  async function route(req: IncomingMessage, res: ServerResponse, url: URL, matched: Matched): Promise<void> {
    if (url.pathname === "/graphql") {
      matched.route = "/graphql";
      return graphql.serve(req, res, url);
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

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const proxying = draining ? undefined : proxy.serve(req, res);
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
    const matched: Matched = { route: "unmatched" };
    if (draining && url.pathname !== "/healthz") {
      res.shouldKeepAlive = false;
      const shuttingDown = new AppError("SHUTTING_DOWN", "This instance is shutting down; send the request again (another instance will take it).", {
        retryAfterSeconds: 1,
        headers: { connection: "close" },
      });
      writeResponse(res, problemResponse(asProblem(shuttingDown)!));
      countRequest(matched.route, "503");
      return;
    }
    settle(req, res, route(req, res, url, matched), matched, () => url.pathname, started);
  }

  /** Answers what `serving` throws (a problem, or a 500 logged), then counts the request by its route pattern. */
  function settle(req: IncomingMessage, res: ServerResponse, serving: Promise<void>, matched: Matched, pathname: () => string, started: bigint): void {
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
        // A database outage or a full disk is not a bug: 503 with Retry-After, logged once (db/outage.ts).
        const problem = asProblem(error) ?? asProblem(databaseOutage.refusal(error));
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
    handle,
    drain: () => {
      draining = true;
    },
  };
}
