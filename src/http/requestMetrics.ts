import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { BodyGate } from "./bodyGate.ts";

/** Counts one finished request by its route pattern and status; `seconds`: how long it took. */
export type CountRequest = (route: string, status: string, seconds?: number) => void;

/**
 * switchyard_http_requests_total and switchyard_http_request_duration_seconds on the app's registry.
 * Labelled by route pattern, never the raw path (ids and junk in paths would explode the series).
 * And switchyard_http_bodies_in_flight, read from the body gate when scraped.
 */
export function createRequestMetrics(registry: Registry, bodies: Pick<BodyGate, "inFlight">): CountRequest {
  new Gauge({
    name: "switchyard_http_bodies_in_flight",
    help: "Request bodies being received now on this instance (bounded by BODY_MAX_IN_FLIGHT)",
    registers: [registry],
    collect() {
      this.set(bodies.inFlight());
    },
  });
  const requests = new Counter({
    name: "switchyard_http_requests_total",
    help: "HTTP requests by route and status",
    labelNames: ["route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "switchyard_http_request_duration_seconds",
    help: "HTTP request duration by route",
    labelNames: ["route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  // prom-client hashes a label object on every call: each route's series are looked up once (bounded:
  // routes are patterns, statuses are HTTP codes).
  const routeSeries = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>();
  return (route, status, seconds) => {
    const key = `${route} ${status}`;
    let series = routeSeries.get(key);
    if (!series) {
      series = { count: requests.labels({ route, status }), time: duration.labels({ route }) };
      routeSeries.set(key, series);
    }
    series.count.inc();
    if (seconds !== undefined) series.time.observe(seconds);
  };
}
