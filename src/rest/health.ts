import type { Services } from "../services.ts";
import { json, type Route } from "../http/types.ts";
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
      handler: async () => ({ status: 200, headers: { "content-type": metrics.contentType }, body: await metrics.metrics() }),
    },
  ];
}
