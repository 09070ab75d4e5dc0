import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";

/**
 * Whether Redis is usable right now, for the parts that degrade without it instead of failing:
 * live subscriptions (src/events/bus.ts) and shared rate limits (src/ratelimit/limiter.ts).
 *
 * Redis is up while every watched connection is `ready`. An outage is logged once when it starts
 * and once when it ends (with how many times this instance fell back meanwhile), never per request;
 * `switchyard_redis_up` and `switchyard_redis_fallbacks_total{use}` show it on /metrics.
 */
export type RedisState = "ok" | "degraded" | "off";

export interface RedisHealth {
  /** `off`: no REDIS_URL. `degraded`: configured, not reachable now. */
  state(): RedisState;
  /** Tells `listener` when Redis goes down (false) or comes back (true). */
  onChange(listener: (up: boolean) => void): () => void;
  /** Adds a connection (the pub/sub subscriber) to those that must be ready. */
  watch(client: Redis): void;
  /** Something went to this instance's memory instead of Redis (publish, rate_limit). */
  fellBack(use: "publish" | "rate_limit"): void;
  /** A command failed although the connections looked ready: treat Redis as down until they reconnect. */
  failed(error: unknown): void;
  registerOn(registry: Registry): void;
}

export function createRedisHealth(redis: Redis | undefined, logger: Logger): RedisHealth {
  const clients: Redis[] = [];
  const listeners = new Set<(up: boolean) => void>();
  const fallbacks = new Map<string, number>();
  // Down until the first connection is made (commands would fail); only later changes are logged.
  let up = false;
  let everUp = false;
  let since = Date.now();
  let fellBackDuringOutage = 0;
  let failedUntilReconnect = false;

  const allReady = () => clients.every((client) => client.status === "ready");

  function update() {
    const now = clients.length > 0 && allReady() && !failedUntilReconnect;
    if (now === up) return;
    up = now;
    const lastedMs = Date.now() - since;
    since = Date.now();
    if (now && !everUp) {
      everUp = true;
    } else if (!now) {
      fellBackDuringOutage = 0;
      logger.warn(
        "Redis is unreachable: live subscriptions on this instance are paused (subscribers are told, and resume with `after`), rate limits count on this instance only. Retrying in the background.",
      );
    } else {
      logger.info({ outageMs: lastedMs, fallbacks: fellBackDuringOutage }, "Redis is reachable again: live subscriptions and shared rate limits are back");
    }
    for (const listener of [...listeners]) listener(now);
  }

  function watch(client: Redis) {
    clients.push(client);
    client.on("ready", () => {
      failedUntilReconnect = false;
      update();
    });
    for (const event of ["close", "end", "reconnecting"]) client.on(event, update);
    // Errors are reported by state, not per occurrence: ioredis emits one per failed reconnect.
    client.on("error", () => update());
  }
  if (redis) watch(redis);

  return {
    state: () => (!redis ? "off" : up ? "ok" : "degraded"),
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    watch(client) {
      watch(client);
      update();
    },
    fellBack(use) {
      fallbacks.set(use, (fallbacks.get(use) ?? 0) + 1);
      fellBackDuringOutage++;
    },
    failed(error) {
      if (!up) return;
      logger.warn({ err: error }, "a Redis command failed");
      failedUntilReconnect = true;
      update();
      // The connection itself may be fine (a command timed out): check again shortly.
      setTimeout(() => {
        if (!failedUntilReconnect) return;
        failedUntilReconnect = false;
        update();
      }, 1000).unref();
    },
    registerOn(registry) {
      if (!redis) return;
      new Gauge({
        name: "switchyard_redis_up",
        help: "1 while Redis (REDIS_URL) is reachable; 0 while live events and rate limits run on this instance only",
        registers: [registry],
        collect() {
          this.set(up ? 1 : 0);
        },
      });
      new Counter({
        name: "switchyard_redis_fallbacks_total",
        help: "Operations done in this instance's memory because Redis was unreachable, by use (publish, rate_limit)",
        labelNames: ["use"] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const [use, count] of fallbacks) this.inc({ use }, count);
        },
      });
    },
  };
}
