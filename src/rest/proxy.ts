import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Proxy } from "../connections/proxy.ts";
import { findConnector } from "../connectors/registry.ts";
import { AppError, badInput } from "../errors.ts";
import type { BodyGate } from "../http/bodyGate.ts";
import { clientIp } from "../http/node.ts";
import { asProblem } from "../http/problem.ts";

export const PROXY_PREFIX = "/api/v1/proxy/";
/** The route's pattern: the `route` label of the HTTP metrics. */
export const PROXY_ROUTE = "/api/v1/proxy/:connector/:account/*";
/** Every problem answered for a proxied request carries it; the provider's answers never do. */
export const PROXY_PROBLEM_HEADERS = { "x-switchyard-error": "true" };
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function retriesAsked(value: string | string[] | undefined): number {
  if (value === undefined) return 0;
  const text = Array.isArray(value) ? value[0] : value;
  if (!/^[0-5]$/.test(text.trim())) {
    throw badInput("x-switchyard-retries must be a whole number from 0 to 5.", [{ field: "x-switchyard-retries", message: "must be 0–5" }]);
  }
  return Number(text);
}

/** A Switchyard API key given as an SDK's own token: `Authorization: Bearer sy_…` (or GitHub's `token sy_…`). */
const KEY_AS_TOKEN = /^(?:Bearer|token)\s+(sy_[a-z]+_[A-Za-z0-9_-]+)\s*$/i;

/**
 * The caller's API key: `x-api-key`, else an `Authorization` whose token is a Switchyard key (the
 * SDKs that take only a token and a base URL, such as Notion's and Octokit). The Authorization
 * header is never sent on either way.
 */
function keyOf(headers: IncomingMessage["headers"]): string | undefined {
  const key = headers["x-api-key"];
  if (key !== undefined) return Array.isArray(key) ? key[0] : key;
  const authorization = headers.authorization;
  return authorization === undefined ? undefined : KEY_AS_TOKEN.exec(authorization)?.[1];
}

const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

/** Characters a URL parser would percent-encode in a query (WHATWG, special schemes): such a query is normalized first. */
const QUERY_TO_NORMALIZE = /[^\x21-\x7e]|["'<>`]/;

/** `/api/v1/proxy/:connector/:account/{path…}?query` as sent (never resolved: `..` must reach the proxy's check); undefined when it is not one. */
export function proxyTarget(rawUrl: string): { connector: string; account: string; path: string; search: string } | undefined {
  const q = rawUrl.indexOf("?");
  const pathname = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const rawSearch = q === -1 || q === rawUrl.length - 1 ? "" : rawUrl.slice(q);
  const rest = pathname.slice(PROXY_PREFIX.length);
  const afterConnector = rest.indexOf("/");
  if (afterConnector <= 0) return undefined;
  const afterAccount = rest.indexOf("/", afterConnector + 1);
  const connector = decoded(rest.slice(0, afterConnector));
  const account = decoded(afterAccount === -1 ? rest.slice(afterConnector + 1) : rest.slice(afterConnector + 1, afterAccount));
  if (!connector || !account) return undefined;
  const search = QUERY_TO_NORMALIZE.test(rawSearch) ? new URL(`http://q/${rawSearch}`).search : rawSearch;
  if (`${connector}${account}`.includes("\0") || (search.includes("%00") && [...new URLSearchParams(search)].some(([name, value]) => `${name}${value}`.includes("\0")))) {
    throw new AppError("BAD_USER_INPUT", "The request's path or query contains a NUL character.");
  }
  return { connector, account, path: afterAccount === -1 ? "" : rest.slice(afterAccount + 1), search };
}

/**
 * {GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS} /api/v1/proxy/:connector/:account/{path…} — the request
 * sent to the connection's provider API with its token, the answer streamed back (connections/proxy.ts).
 *
 * Served straight on node's request and response (no URL object, no router, no request wrapper):
 * it is the hot path of an operator's server calling its providers (bench/proxy). `serve` answers
 * undefined for a URL outside /api/v1/proxy/ (the router's); a problem it rejects with is answered
 * by the app with PROXY_PROBLEM_HEADERS.
 */
export function createProxyEndpoint(deps: { apiKeys: ApiKeys; proxy: Proxy; bodies: BodyGate; trustProxyHops: number }) {
  const { apiKeys, proxy, bodies, trustProxyHops } = deps;

  async function answer(req: IncomingMessage, res: ServerResponse, method: string, target: NonNullable<ReturnType<typeof proxyTarget>>): Promise<void> {
    const startedAt = performance.now();
    const connector = findConnector(target.connector) ? target.connector : undefined;
    const path = `/${target.path}`;
    const record = (status: number, attempts?: number) => proxy.record({ method, connector, path, status, startedAt, attempts });
    try {
      if (!METHODS.has(method)) throw new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed here.`, { headers: { allow: [...METHODS].join(", ") } });
      const { deploymentId } = await apiKeys.authenticate(keyOf(req.headers));
      const answer = await proxy.send({
        deploymentId,
        connector: target.connector,
        account: target.account,
        method,
        path: target.path,
        search: target.search,
        headers: req.headers,
        stream: () => req,
        buffer: (limit) => bodies.read(req, clientIp(req, trustProxyHops), limit),
        retries: retriesAsked(req.headers["x-switchyard-retries"]),
      });
      const body = answer.body;
      body.once("close", () => record(answer.status, answer.attempts));
      res.writeHead(answer.status, answer.headers);
      // pipe, not pipeline: pipeline's per-call AbortController (and the DOMException its abort
      // builds) was a tenth of the proxy's CPU. The same outcomes by hand: a client that goes away
      // destroys the provider's answer; an answer that fails midway cuts the connection.
      body.once("error", () => res.destroy());
      res.once("close", () => {
        if (!body.readableEnded) body.destroy();
      });
      body.pipe(res);
    } catch (error) {
      record(asProblem(error)?.status ?? 500);
      throw error;
    }
  }

  return function serve(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const url = req.url;
    if (!url?.startsWith(PROXY_PREFIX)) return undefined;
    let target: ReturnType<typeof proxyTarget>;
    try {
      target = proxyTarget(url);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!target) return Promise.reject(new AppError("NOT_FOUND", "A proxied request is /api/v1/proxy/{connector}/{account}/{path}."));
    return answer(req, res, req.method ?? "GET", target);
  };
}
