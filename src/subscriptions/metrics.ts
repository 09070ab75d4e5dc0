import { Counter, Gauge, type Registry } from "prom-client";
import type { Sql } from "../db/sql.ts";

/**
 * `switchyard_provider_subscriptions{connector,status}` (read from the table at scrape time, so
 * every instance reports the same), `switchyard_subscription_operations_total{connector,operation,outcome}`
 * and `switchyard_subscription_lifecycle_events_total{connector,event}`.
 */
export function createSubscriptionMetrics(sql: Sql) {
  let operations: Counter<"connector" | "operation" | "outcome"> | undefined;
  let lifecycle: Counter<"connector" | "event"> | undefined;
  return {
    operation(connector: string, operation: "create" | "renew" | "recreate" | "delete" | "read", outcome: "success" | "failure") {
      operations?.inc({ connector, operation, outcome });
    },
    /** A verified lifecycle notification from the provider (Graph's reauthorizationRequired, subscriptionRemoved, missed). */
    lifecycle(connector: string, event: string) {
      // The label is the provider's word, bounded: only short plain names are kept apart.
      lifecycle?.inc({ connector, event: /^[A-Za-z]{1,40}$/.test(event) ? event : "other" });
    },
    registerOn(registry: Registry) {
      lifecycle = new Counter({
        name: "switchyard_subscription_lifecycle_events_total",
        help: "Verified lifecycle notifications about provider subscriptions, by connector and event",
        labelNames: ["connector", "event"] as const,
        registers: [registry],
      });
      operations = new Counter({
        name: "switchyard_subscription_operations_total",
        help: "Provider subscription operations by connector, operation (create, renew, recreate, delete, read) and outcome",
        labelNames: ["connector", "operation", "outcome"] as const,
        registers: [registry],
      });
      new Gauge({
        name: "switchyard_provider_subscriptions",
        help: "Provider subscriptions by connector and status",
        labelNames: ["connector", "status"] as const,
        registers: [registry],
        async collect() {
          this.reset();
          const rows = await sql.query<{ connector: string; status: string; count: string }>(
            `select connector, status::text as status, count(*) as count from provider_subscription group by connector, status`,
            [],
            "subscriptions_metrics",
          );
          for (const row of rows) this.set({ connector: row.connector, status: row.status }, Number(row.count));
        },
      });
    },
  };
}

export type SubscriptionMetrics = ReturnType<typeof createSubscriptionMetrics>;
