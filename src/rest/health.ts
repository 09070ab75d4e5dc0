import { createHash, timingSafeEqual } from "node:crypto";
import type { Services } from "../services.ts";
import { json, type HttpRequest, type Route } from "../http/types.ts";
import { HttpProblem } from "../http/problem.ts";
import type { Registry } from "prom-client";

export function healthRoutes(services: Services, metrics: Registry): Route[] {
  return [
    { method: "GET", path: "/healthz", handler: async () => json(200, { status: "ok" }) },
    {
      method: "GET",
      path: "/readyz",
      handler: async () => {
        try {
          await services.sql.query("select 1");
        } catch (error) {
          services.logger.warn({ err: error }, "readiness check: database unreachable");
          throw new HttpProblem(503, "database_unavailable", "The database is not reachable.");
        }
        return json(200, { status: "ready", database: services.database.kind });
      },
    },
    {
      method: "GET",
      path: "/metrics",
      handler: async (request) => {
        if (services.config.metricsToken) requireMetricsToken(request, services.config.metricsToken);
        return { status: 200, headers: { "content-type": metrics.contentType }, body: await metrics.metrics() };
      },
    },
  ];
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * METRICS_TOKEN set: /metrics is for the scraper that sends it as a bearer token. The series say
 * how busy the service is, which connectors are used and how deliveries fare — nothing for the
 * open internet. Compared as digests in constant time (equal lengths, no early exit).
 */
function requireMetricsToken(request: HttpRequest, token: string) {
  const sent = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
  if (sent !== undefined && timingSafeEqual(digest(sent), digest(token))) return;
  throw new HttpProblem(
    401,
    "unauthenticated",
    sent === undefined
      ? "Metrics need the token this service was configured with (METRICS_TOKEN): send Authorization: Bearer <token>."
      : "The metrics token is not valid.",
    { "www-authenticate": 'Bearer realm="metrics"' },
  );
}
