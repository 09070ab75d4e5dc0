import { listDataItemsByApiKey } from "../data/dataItems.ts";
import { parsePageQuery } from "../data/pageArgs.ts";
import { badInput } from "../errors.ts";
import type { Route } from "../http/types.ts";
import type { ApiKeys } from "../auth/apiKeys.ts";
import type { Sql } from "../db/sql.ts";
import { authenticateApiKey, withApiKey } from "./apiKeyAuth.ts";

/** GET /api/data?offset&limit — the deployment's data items; the page's numbers travel in headers. */
export function getData({ sql, publicUrl, apiKeys }: { sql: Sql; publicUrl: string; apiKeys: ApiKeys }): Route {
  return {
    method: "GET",
    path: "/api/data",
    handler: async (request) => {
      let query: { offset: number; limit: number; envelope: string | null };
      try {
        query = parseQuery(request.url.searchParams);
      } catch (error) {
        // Who is asking comes first: a bad key is 401 even with bad parameters, and a 400 spends the budget.
        await authenticateApiKey(apiKeys, request);
        throw error;
      }
      const { offset, limit, envelope } = query;
      // The key check, the total and the page in one query (see listDataItemsByApiKey).
      const page = await withApiKey(apiKeys, request, (keyHash) => listDataItemsByApiKey(sql, keyHash, offset, limit));

      const headers = {
        "x-total-count": String(page.total),
        "x-offset": String(offset),
        "x-limit": String(limit),
        link: linkHeader(`${publicUrl}/api/data`, offset, limit, page.total, envelope === "true"),
        "access-control-expose-headers": "X-Total-Count, X-Offset, X-Limit, Link",
      };
      const pagination = JSON.stringify({ total: page.total, offset, limit });
      const body = envelope === "true" ? `{"data":${page.itemsJson},"pagination":${pagination}}` : page.itemsJson;
      return { status: 200, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body };
    },
  };
}

function parseQuery(query: URLSearchParams) {
  const { offset, limit } = parsePageQuery(query);
  return { offset, limit, envelope: parseEnvelope(query) };
}

/** `?envelope=true|false` (absent: false), as every paged REST listing reads it. */
export function parseEnvelope(query: URLSearchParams): string | null {
  const envelope = query.get("envelope");
  if (envelope !== null && envelope !== "true" && envelope !== "false") {
    throw badInput("envelope must be true or false.", [{ field: "envelope", message: "must be true or false" }]);
  }
  return envelope;
}

/**
 * RFC 8288 links to the first, previous, next and last pages; prev and next only where they exist.
 * `filters` (a listing's other query parameters) are kept in every link.
 */
export function linkHeader(base: string, offset: number, limit: number, total: number, envelope: boolean, filters: [string, string][] = []): string {
  const kept = filters.map(([name, value]) => `&${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join("");
  const url = (at: number) => `<${base}?offset=${at}&limit=${limit}${kept}${envelope ? "&envelope=true" : ""}>`;
  const last = total === 0 ? 0 : Math.floor((total - 1) / limit) * limit;
  const links = [`${url(0)}; rel="first"`];
  if (offset > 0) links.push(`${url(Math.max(0, Math.min(offset - limit, last)))}; rel="prev"`);
  if (offset + limit < total) links.push(`${url(offset + limit)}; rel="next"`);
  links.push(`${url(last)}; rel="last"`);
  return links.join(", ");
}
