import { listDataItems } from "../data/dataItems.ts";
import { parsePageQuery } from "../data/pageArgs.ts";
import { HttpProblem } from "../http/problem.ts";
import { json, type Route } from "../http/types.ts";
import type { Services } from "../services.ts";
import { authenticateApiKey } from "./apiKeyAuth.ts";

/** GET /api/data?offset&limit — the deployment's data items; the page's numbers travel in headers. */
export function getData(services: Services): Route {
  return {
    method: "GET",
    path: "/api/data",
    handler: async (request) => {
      const { deploymentId } = await authenticateApiKey(services, request);
      const { offset, limit } = parsePageQuery(request.url.searchParams);
      const envelope = request.url.searchParams.get("envelope");
      if (envelope !== null && envelope !== "true" && envelope !== "false") {
        throw new HttpProblem(400, "invalid_parameter", "envelope must be true or false.");
      }
      const page = await listDataItems(services.sql, deploymentId, offset, limit);
      if (!page) throw new HttpProblem(401, "invalid_api_key", "The API key's deployment no longer exists.");

      const headers = {
        "x-total-count": String(page.total),
        "x-offset": String(offset),
        "x-limit": String(limit),
        link: linkHeader(`${services.config.publicUrl}/api/data`, offset, limit, page.total, envelope === "true"),
        "access-control-expose-headers": "X-Total-Count, X-Offset, X-Limit, Link",
      };
      const body = envelope === "true" ? { data: page.items, pagination: { total: page.total, offset, limit } } : page.items;
      return json(200, body, headers);
    },
  };
}

/** RFC 8288 links to the first, previous, next and last pages; prev and next only where they exist. */
export function linkHeader(base: string, offset: number, limit: number, total: number, envelope: boolean): string {
  const url = (at: number) => `<${base}?offset=${at}&limit=${limit}${envelope ? "&envelope=true" : ""}>`;
  const last = total === 0 ? 0 : Math.floor((total - 1) / limit) * limit;
  const links = [`${url(0)}; rel="first"`];
  if (offset > 0) links.push(`${url(Math.max(0, Math.min(offset - limit, last)))}; rel="prev"`);
  if (offset + limit < total) links.push(`${url(offset + limit)}; rel="next"`);
  links.push(`${url(last)}; rel="last"`);
  return links.join(", ");
}
