import { Counter, Gauge, type Registry } from "prom-client";
import type { Sql } from "../db/sql.ts";

/**
 * `switchyard_provider_subscriptions{connector,status}` (read from the table at scrape time, so
 * every instance reports the same) and `switchyard_subscription_operations_total{connector,operation,outcome}`.
 */
export function createSubscriptionMetrics(sql: Sql) {
  let operations: Counter<"connector" | "operation" | "outcome"> | undefined;
  return {
    operation(connector: string, operation: "create" | "renew" | "recreate" | "delete" | "read", outcome: "success" | "failure") {
      operations?.inc({ connector, operation, outcome });
    },
    registerOn(registry: Registry) {
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
