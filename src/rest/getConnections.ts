import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Connections } from "../connections/connections.ts";
import { parseConnectionFilter } from "../connections/filter.ts";
import { parsePageQuery } from "../data/pageArgs.ts";
import { badInput } from "../errors.ts";
import type { Route } from "../http/types.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";
import { linkHeader, parseEnvelope } from "./getData.ts";

const FILTERS = ["connector", "status", "search"] as const;

/**
 * GET /api/v1/connections?connector&status&search&offset&limit — the deployment's connections,
 * newest first, paged exactly as /api/data (the page's numbers in headers, `?envelope=true`).
 */
export function getConnections(deps: { apiKeys: ApiKeys; connections: Connections; publicUrl: string }): Route {
  return {
    method: "GET",
    path: "/api/v1/connections",
    handler: async (request) => {
      let query: ReturnType<typeof parseQuery>;
      try {
        query = parseQuery(request.url.searchParams);
      } catch (error) {
        // Who is asking comes first: a bad key is 401 even with bad parameters (as /api/data).
        await authenticateApiKey(deps.apiKeys, request);
        throw error;
      }
      const { deploymentId } = await authenticateApiKey(deps.apiKeys, request);
      const { offset, limit, envelope, filter, given } = query;
      const page = await deps.connections.list(deploymentId, filter, offset, limit);
      const headers = {
        "x-total-count": String(page.total),
        "x-offset": String(offset),
        "x-limit": String(limit),
        link: linkHeader(`${deps.publicUrl}/api/v1/connections`, offset, limit, page.total, envelope === "true", given),
        "access-control-expose-headers": "X-Total-Count, X-Offset, X-Limit, Link",
        "cache-control": "no-store",
      };
      const body = envelope === "true" ? { data: page.connections, pagination: { total: page.total, offset, limit } } : page.connections;
      return { status: 200, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body: JSON.stringify(body) };
    },
  };
}

function parseQuery(query: URLSearchParams) {
  const { offset, limit } = parsePageQuery(query);
  const envelope = parseEnvelope(query);
  const given: [string, string][] = [];
  for (const name of FILTERS) {
    const values = query.getAll(name);
    if (values.length > 1) throw badInput(`${name} may be given once.`, [{ field: name, message: "given more than once" }]);
    if (values[0]) given.push([name, values[0]]);
  }
  const filter = parseConnectionFilter(Object.fromEntries(given));
  return { offset, limit, envelope, filter, given };
}
