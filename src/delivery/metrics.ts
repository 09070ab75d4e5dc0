import { Counter, Gauge, Histogram, type Metric, type Registry } from "prom-client";
import type { Sql } from "../db/sql.ts";

/**
 * The forwarding pipeline's Prometheus series: what comes in (per connector and result) and what
 * goes out (per outcome), how long attempts take, and how deep and old the queue is. Labels are
 * bounded sets — never a deployment, a URL or an account — so the series count does not grow with
 * customers. The queue gauges are read from the database at scrape time: they describe the shared
 * queue, so every instance reports the same value (alert on max(), not sum()).
 */
export type DeliveryOutcome = "succeeded" | "retrying" | "failed" | "cancelled";

export interface OperationsMetrics {
  /**
   * One finished attempt: `succeeded`, `retrying` (failed, another is scheduled or held), `failed`
   * (given up). Undefined for an attempt of a delivery cancelled while it was in flight: timed, but
   * the delivery was already counted as cancelled.
   */
  deliveryAttempted(outcome: Exclude<DeliveryOutcome, "cancelled"> | undefined, durationMs: number): void;
  /** An operator cancelled a pending delivery. */
  deliveryCancelled(): void;
  /** A delivery stopped unsent because none of its last claims could record an attempt (MAX_UNRECORDED_CLAIMS): `failed`. */
  deliveryGivenUp(): void;
  /** Inbound events by result (forwarded, stored, duplicate, unrouted), or a refused request by its problem code. */
  inbound(connector: string, result: string, count?: number): void;
  /** Adds the series to the registry /metrics serves. */
  registerOn(registry: Registry): void;
}

/** `now`: the app's clock, which the delivery queue stamps its rows with (created_at included). */
export function createOperationsMetrics(sql: Sql, now: () => Date = () => new Date()): OperationsMetrics {
  const deliveries = new Counter({
    name: "switchyard_deliveries_total",
    help: "Delivery attempts by outcome: succeeded, retrying (another attempt follows), failed (given up), cancelled",
    labelNames: ["outcome"] as const,
    registers: [],
  });
  const duration = new Histogram({
    name: "switchyard_delivery_duration_seconds",
    help: "How long forwarding URLs took to answer an attempt (or to fail it)",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [],
  });
  const inbound = new Counter({
    name: "switchyard_inbound_events_total",
    help: "Inbound webhook events by connector and result; refused requests by their problem code",
    labelNames: ["connector", "result"] as const,
    registers: [],
  });
  // One query feeds both gauges; a scrape that asks for both within a second reuses it.
  let queue: { at: number; value: Promise<{ depth: number; oldestSeconds: number }> } | undefined;
  const readQueue = () => {
    if (!queue || Date.now() - queue.at > 1000) {
      const value = sql
        .query<{ depth: string | number; oldest_seconds: string | number | null }>(
          `select count(*) as depth, extract(epoch from $1::timestamp - min(created_at)) as oldest_seconds
           from delivery where status = 'PENDING'`,
          [now().toISOString()],
          "metrics_delivery_queue",
        )
        .then(([row]) => ({ depth: Number(row?.depth ?? 0), oldestSeconds: Math.max(0, Number(row?.oldest_seconds ?? 0)) }));
      queue = { at: Date.now(), value };
      value.catch(() => (queue = undefined));
    }
    return queue.value;
  };
  const depth = new Gauge({
    name: "switchyard_delivery_queue_depth",
    help: "PENDING deliveries, held ones included (the whole installation's queue)",
    registers: [],
    async collect() {
      this.set((await readQueue()).depth);
    },
  });
  const oldest = new Gauge({
    name: "switchyard_delivery_oldest_pending_seconds",
    help: "Age of the oldest PENDING delivery, 0 when none",
    registers: [],
    async collect() {
      this.set((await readQueue()).oldestSeconds);
    },
  });

  return {
    deliveryAttempted(outcome, durationMs) {
      if (outcome) deliveries.inc({ outcome });
      duration.observe(durationMs / 1000);
    },
    deliveryCancelled() {
      deliveries.inc({ outcome: "cancelled" });
    },
    deliveryGivenUp() {
      deliveries.inc({ outcome: "failed" });
    },
    inbound(connector, result, count = 1) {
      if (count > 0) inbound.inc({ connector, result }, count);
    },
    registerOn(registry) {
      for (const metric of [deliveries, duration, inbound, depth, oldest]) registry.registerMetric(metric as Metric);
    },
  };
}
