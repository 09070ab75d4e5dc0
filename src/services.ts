import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { type AccessCache, createAccessCache } from "./auth/access.ts";
import { createLoginGuard, type LoginGuard } from "./auth/loginGuard.ts";
import { createRevocations, type Revocations } from "./auth/revocations.ts";
import type { Config } from "./config.ts";
import { createPasswordHasher, type PasswordHasher } from "./crypto/passwords.ts";
import { createSecretBox, type SecretBox } from "./crypto/secrets.ts";
import type { Database, Db } from "./db/database.ts";
import { createDatabaseOutage, type DatabaseOutage } from "./db/outage.ts";
import type { Sql } from "./db/sql.ts";
import { createEventBus, type EventBus } from "./events/bus.ts";
import { createRedisHealth, type RedisHealth } from "./events/redisHealth.ts";
import { createOperationsMetrics, type OperationsMetrics } from "./delivery/metrics.ts";
import { createDeliverySignal, type DeliverySignal } from "./delivery/signal.ts";
import { createRateLimit, type RateLimit } from "./ratelimit/limiter.ts";

/**
 * Everything a route or resolver needs, built once per app from its config and connections.
 * No module keeps state of its own: two apps in one process (tests) never share anything.
 */
export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  db: Db;
  sql: Sql;
  /** Database outages: 503 instead of 500, one warning per outage, a bounded readiness check (db/outage.ts). */
  databaseOutage: DatabaseOutage;
  box: SecretBox;
  passwords: PasswordHasher;
  /** Ended sessions, replaced API keys and removed members, announced on this instance (auth/revocations.ts). */
  revocations: Revocations;
  /** Deployments' rows and members' roles remembered by access checks (auth/access.ts). */
  accessCache: AccessCache;
  rateLimits: { api: RateLimit; login: LoginGuard; signup: RateLimit };
  redis: Redis | undefined;
  /** Whether Redis is reachable now; what falls back to this instance's memory meanwhile (events/redisHealth.ts). */
  redisHealth: RedisHealth;
  /** Live notifications for subscriptions (publish after commit; the database is the truth). */
  events: EventBus;
  /** Wakes this process's delivery worker when an event is queued (a hint; the worker also polls). */
  deliverySignal: DeliverySignal;
  /** Forwarding's Prometheus series (deliveries, queue, inbound events); app.ts serves them on /metrics. */
  operationsMetrics: OperationsMetrics;
}

export function createServices(config: Config, logger: Logger, database: Database, redis: Redis | undefined): Services {
  const revocations = createRevocations();
  const redisHealth = createRedisHealth(redis, logger);
  const onFallback = () => redisHealth.fellBack("rate_limit");
  return {
    config,
    logger,
    database,
    db: database.prisma,
    sql: database.sql,
    databaseOutage: createDatabaseOutage(database.sql, logger),
    box: createSecretBox(config.encryptionKey),
    passwords: createPasswordHasher(config.passwordHashCost),
    revocations,
    accessCache: createAccessCache(revocations),
    rateLimits: {
      api: createRateLimit({ name: "api", points: config.rateLimitPerMinute, durationSeconds: 60, redis, onFallback }),
      login: createLoginGuard({
        perAddressPerHour: config.loginRateLimitPerAddressPerHour,
        perAccountAndAddress: config.loginRateLimitPer15Minutes,
        accountFreeFailures: config.loginAccountFreeFailures,
        redis,
        onFallback,
      }),
      signup: createRateLimit({ name: "signup", points: config.signupRateLimitPerHour, durationSeconds: 3600, redis, onFallback }),
    },
    redis,
    redisHealth,
    events: createEventBus(redis, redisHealth),
    deliverySignal: createDeliverySignal(),
    operationsMetrics: createOperationsMetrics(database.sql),
  };
}
