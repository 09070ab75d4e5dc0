import { createHash, timingSafeEqual } from "node:crypto";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import type { DiskSpace } from "../db/diskSpace.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import type { RedisHealth } from "../events/redisHealth.ts";
import { json, type HttpRequest, type Route } from "../http/types.ts";
import { AppError } from "../errors.ts";
import type { Registry } from "prom-client";

/**
 * /healthz: the process answers. /readyz: this instance can take traffic — the database answers
 * within a second (never longer: a probe that hangs is as bad as a failed one), and, on the embedded
 * database, its folder's disk has at least MIN_FREE_DISK_MB free. Redis is reported but does not
 * decide: without it the service runs degraded (docs/operations.md). During shutdown app.ts answers
 * /readyz 503 `shutting_down` before it gets here.
 */
export interface HealthDeps {
  config: Pick<Config, "minFreeDiskMb" | "metricsToken">;
  databaseKind: Database["kind"];
  databaseOutage: DatabaseOutage;
  /** The embedded database's disk (nothing on a PostgreSQL server). */
  diskSpace: Pick<DiskSpace, "read">;
  redisHealth: RedisHealth;
  /** The app's Prometheus registry, served on /metrics. */
  metrics: Registry;
}

export function healthRoutes({ config, databaseKind, databaseOutage, diskSpace, redisHealth, metrics }: HealthDeps): Route[] {
  return [
    { method: "GET", path: "/healthz", handler: async () => json(200, { status: "ok" }) },
    {
      method: "GET",
      path: "/readyz",
      handler: async () => {
        const [reachable, disk] = await Promise.all([databaseOutage.reachable(), diskSpace.read()]);
        if (!reachable) {
          // Logged once per outage by databaseOutage, not once per probe.
          throw new AppError("SERVICE_UNAVAILABLE", "The database is not reachable.", { retryAfterSeconds: 5 });
        }
        if (disk?.low) {
          throw new AppError(
            "DISK_SPACE_LOW",
            `The embedded database's disk has ${disk.freeMb} MB free, under MIN_FREE_DISK_MB (${config.minFreeDiskMb} MB). Free some space or move DATA_DIR to a larger disk.`,
            { problemMembers: { freeDiskMb: disk.freeMb } },
          );
        }
        return json(200, {
          status: "ready",
          database: databaseKind,
          redis: redisHealth.state(),
          // A server whose disk is full still reads: every instance alike, so none is taken out of rotation.
          ...(databaseOutage.diskFull() ? { databaseDisk: "full" } : {}),
          ...(disk ? { freeDiskMb: disk.freeMb } : {}),
        });
      },
    },
    {
      method: "GET",
      path: "/metrics",
      handler: async (request) => {
        if (config.metricsToken) requireMetricsToken(request, config.metricsToken);
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
  throw new AppError(
    "UNAUTHENTICATED",
    sent === undefined
      ? "Metrics need the token this service was configured with (METRICS_TOKEN): send Authorization: Bearer <token>."
      : "The metrics token is not valid.",
    { headers: { "www-authenticate": 'Bearer realm="metrics"' } },
  );
}
