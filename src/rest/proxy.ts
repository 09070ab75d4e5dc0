import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Proxy } from "../connections/proxy.ts";
import { findConnector } from "../connectors/registry.ts";
import { badInput } from "../errors.ts";
import { asProblem } from "../http/problem.ts";
import { header, type Route, type RouteHandler } from "../http/types.ts";

export const PROXY_PREFIX = "/api/v1/proxy/";
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const; // HEAD is served by GET's route

function retriesAsked(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^[0-5]$/.test(value.trim())) {
    throw badInput("x-switchyard-retries must be a whole number from 0 to 5.", [{ field: "x-switchyard-retries", message: "must be 0–5" }]);
  }
  return Number(value);
}

/**
 * {GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS} /api/v1/proxy/:connector/:account/{path…} — the request
 * sent to the connection's provider API with its token, the answer streamed back (connections/proxy.ts).
 * Every problem answered here carries `x-switchyard-error: true`; the provider's answers never do.
 */
export function proxyRoutes(apiKeys: ApiKeys, proxy: Proxy): Route[] {
  const handler: RouteHandler = async (request) => {
    const startedAt = performance.now();
    const connector = findConnector(request.params.connector) ? request.params.connector : undefined;
    const path = `/${request.params["*"] ?? ""}`;
    const record = (status: number, attempts?: number) => proxy.record({ method: request.method, connector, path, status, startedAt, attempts });
    try {
      const { deploymentId } = await apiKeys.authenticate(header(request, "x-api-key"));
      const answer = await proxy.send({
        deploymentId,
        connector: request.params.connector,
        account: request.params.account,
        method: request.method,
        path: request.params["*"] ?? "",
        search: request.url.search,
        headers: request.headers,
        stream: request.stream,
        buffer: request.body,
        retries: retriesAsked(header(request, "x-switchyard-retries")),
      });
      answer.body.once("close", () => record(answer.status, answer.attempts));
      return { status: answer.status, headers: answer.headers, body: answer.body };
    } catch (error) {
      record(asProblem(error)?.status ?? 500);
      throw error;
    }
  };
  return METHODS.map((method) => ({ method, path: "/api/v1/proxy/:connector/:account/*", handler, problemHeaders: { "x-switchyard-error": "true" } }));
}
