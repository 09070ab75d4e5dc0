import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as z from "zod";

/**
 * The only reader of process.env. Everything else receives a `Config`.
 * Bad values stop the process at start-up with a message that names the variable and what it wants.
 */

const duration = /^(\d+)(ms|s|m|h|d)$/;
const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function parseDuration(text: string): number {
  const match = duration.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration like 500ms, 5s, 5m, 2h or 1d`);
  return Number(match[1]) * durationUnits[match[2]];
}

/** A variable read by `parse`; what it throws fails the schema, so the message names the variable with the others'. */
const parsed = <T>(fallback: string, parse: (text: string) => T) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      try {
        return parse(text);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    });

/** A duration variable ("500ms", "5s", "2h") as milliseconds. `min`: the least it may be; `orZero`: "0" means none. */
const durationMs = (fallback: string, { min, orZero = false }: { min?: number; orZero?: boolean } = {}) =>
  parsed(fallback, (text) => {
    if (orZero && text.trim() === "0") return 0;
    let ms: number;
    try {
      ms = parseDuration(text);
    } catch (error) {
      throw orZero ? new Error(`${(error as Error).message} (or 0 for none)`) : error;
    }
    if (min !== undefined && ms < min) throw new Error(`"${text}" is shorter than ${min / 1000}s`);
    return ms;
  });

/** A comma-separated list of durations, as durationMs each. */
const durationsMs = (fallback: string) => parsed(fallback, (text) => text.split(",").map(parseDuration));

const booleanFlag = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((value) => value === "true" || value === "1");

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: z.url().optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// connection string (leave it unset for the embedded database)")
    .optional(),
  DATA_DIR: z.string().default("./.data"),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// URL").optional(),
  REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]*$/, "letters, digits and : . _ - only").default(""),
  SUBSCRIPTION_BUFFER_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  SUBSCRIPTION_REPLAY_LIMIT: z.coerce.number().int().min(1).max(100_000).default(1000),
  SUBSCRIPTION_ACCESS_RECHECK: durationMs("10s"),
  ENCRYPTION_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  CONNECT_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
  DELIVERY_RETRY_SCHEDULE: durationsMs("5s,5m,30m,2h,5h,10h,10h"),
  POLL_INTERVAL: durationMs("60s"),
  POLLING_FAILED_AFTER: durationMs("24h"),
  // A pass reads the statistics of every table: back to back, it would be the database's main work.
  // Ten seconds, not autovacuum's minute: on the embedded database a statement planned before a new
  // table's first ANALYZE read the whole backlog on every call until then (src/db/vacuumJob.ts).
  VACUUM_INTERVAL: durationMs("10s", { min: 1_000 }),
  FORWARDING_DISABLE_AFTER: durationMs("5d"),
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  DELIVERY_MAX_IN_FLIGHT_PER_URL: z.coerce.number().int().min(1).max(10_000).default(64),
  FORWARDING_ALLOW_PRIVATE: booleanFlag,
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  LOGIN_RATE_LIMIT_PER_15_MINUTES: z.coerce.number().int().min(1).default(10),
  LOGIN_RATE_LIMIT_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(100),
  LOGIN_ACCOUNT_FREE_FAILURES: z.coerce.number().int().min(1).default(10),
  TRUST_PROXY: z
    .string()
    .trim()
    .regex(/^(true|false|\d{1,2})$/, "must be false (the default), true, or the number of proxies in front of the service (e.g. 1)")
    .optional(),
  SIGNUP: z.enum(["open", "closed"], "must be open or closed").optional(),
  SIGNUP_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  ORGANIZATION_CREATION: z.enum(["anyone", "owners"], "must be anyone or owners").optional(),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).default(24 * 14),
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(17),
  CORS_ORIGINS: z.string().default(""),
  GRAPHQL_INTROSPECTION: z.enum(["true", "false", "1", "0"]).optional(),
  WS_MAX_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  WS_ANONYMOUS_TIMEOUT: durationMs("30s"),
  DATABASE_STATEMENT_TIMEOUT: durationMs("10s", { orZero: true }),
  SUBSCRIPTIONS_MAX_PER_SOCKET: z.coerce.number().int().min(1).default(25),
  SUBSCRIPTIONS_MAX_PER_PRINCIPAL: z.coerce.number().int().min(1).default(100),
  SUBSCRIPTIONS_MAX_PER_ADDRESS: z.coerce.number().int().min(1).default(200),
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters (make one with `openssl rand -hex 32`)").optional(),
  SHUTDOWN_GRACE: durationMs("20s"),
  MIN_FREE_DISK_MB: z.coerce.number().int().min(0).default(256),
  SWITCHYARD_TEST_ONLY_FAIL_DISK_WRITES_WHEN: z.string().optional(),
  BODY_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(256),
  BODY_MAX_IN_FLIGHT_PER_ADDRESS: z.coerce.number().int().min(1).default(64),
  BODY_TIMEOUT: durationMs("10s"),
  PROXY_TIMEOUT: durationMs("30s"),
  PROXY_MAX_BODY: z.coerce.number().int().min(1).default(10 * 1024 * 1024),
  MAX_RESOURCES_PER_CONNECTION: z.coerce.number().int().min(1).default(100),
  PROXY_BUFFER_BUDGET: z.coerce.number().int().min(1).default(64 * 1024 * 1024),
});

/** Every variable the schema reads (the README's configuration table is checked against it). */
export const configVariables = Object.keys(schema.shape);

export type Config = {
  env: "development" | "production" | "test";
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /** Prefixes every Redis key and pub/sub channel, so installations (or test runs) can share a Redis. */
  redisKeyPrefix: string;
  /** Messages a live subscription may fall behind before it is ended with a notice (docs/scaling.md). */
  subscriptionBufferSize: number;
  /** Missed events a resumed subscription (`forwardedEvents(after:)`) replays at most, newest kept. */
  subscriptionReplayLimit: number;
  /**
   * How long a live subscription trusts its last check of the caller (session or API key, and
   * membership) before it checks again ahead of sending a message: the bound on how late a
   * revocation made on another instance stops it (docs/security.md, "Live subscriptions").
   */
  subscriptionAccessRecheckMs: number;
  encryptionKey: Buffer;
  logLevel: z.infer<typeof schema>["LOG_LEVEL"];
  connectUrlTtlSeconds: number;
  deliveryRetryScheduleMs: number[];
  deliveryTimeoutMs: number;
  /**
   * Attempts in flight at once to one forwarding URL, across every instance: a claim skips the
   * URL's deliveries while it has this many (src/delivery/queue/claim.ts), so one receiver that
   * hangs cannot take the worker from everyone else.
   */
  deliveryMaxInFlightPerUrl: number;
  /** How often providers that are read rather than pushed (Gmail without Pub/Sub) are polled. */
  pollIntervalMs: number;
  /** How long a connection's polls may all fail before switchyard.polling_failed is emitted (once per run of failures). */
  pollingFailedAfterMs: number;
  /** How often the app vacuums its own tables where nothing else does (src/db/vacuumJob.ts). */
  vacuumIntervalMs: number;
  /** How many resources one connection may watch (POST …/resources past it: 409 limit_exceeded). */
  maxResourcesPerConnection: number;
  forwardingAllowPrivate: boolean;
  /** How long every attempt to a forwarding URL may fail, with no success, before forwarding is DISABLED. */
  forwardingDisableAfterMs: number;
  /** Events, deliveries and attempts older than this many days are deleted in the background. */
  retentionDays: number;
  rateLimitPerMinute: number;
  /** Attempts per account from one address per 15 minutes; a successful log-in clears them. */
  loginRateLimitPer15Minutes: number;
  /** Failed log-ins from one address (any account) per hour. */
  loginRateLimitPerAddressPerHour: number;
  /** Failed log-ins on one account (from anywhere) before its exponential backoff starts. */
  loginAccountFreeFailures: number;
  /**
   * How many proxies in front of the service to believe: the client address is the entry this many
   * hops from the right of X-Forwarded-For (0: the socket's address; Infinity: the leftmost entry).
   */
  trustProxyHops: number;
  /** Who may sign up once the first account exists: anyone, or invited addresses only. */
  signup: "open" | "closed";
  signupRateLimitPerHour: number;
  /**
   * Who may create organizations: any logged-in user, or only users who already own one (and the
   * install's first account, when no organization exists yet).
   */
  organizationCreation: "anyone" | "owners";
  sessionTtlHours: number;
  /** log2 of scrypt's N; tests lower it to keep sign-ups fast. */
  passwordHashCost: number;
  /**
   * Origins (besides PUBLIC_URL's) whose pages may call /graphql with the session cookie, with
   * credentialed CORS (docs/security.md).
   */
  corsOrigins: string[];
  /** Introspection and GraphiQL: on by default in development and test, off in production. */
  graphqlIntrospection: boolean;
  /** Open graphql-ws sockets and SSE streams one client address may hold, together. */
  wsMaxPerAddress: number;
  /** Operations (subscriptions, or queries in flight) running at once on one graphql-ws socket. */
  subscriptionsMaxPerSocket: number;
  /** Subscriptions (websockets and SSE) running at once for one user or API key, on one instance. */
  subscriptionsMaxPerPrincipal: number;
  /** Subscriptions (websockets and SSE) running at once from one client address, on one instance. */
  subscriptionsMaxPerAddress: number;
  /** How long a graphql-ws socket without credentials may stay open with no subscription. */
  wsAnonymousTimeoutMs: number;
  /** When set, /metrics answers only requests with `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /**
   * PostgreSQL's statement_timeout on the connections that serve requests (0: none): the longest one
   * request's statement may hold the shared database (docs/security.md, "Database time").
   */
  databaseStatementTimeoutMs: number;
  /**
   * On SIGTERM, how long attempts in flight may take to finish and be recorded before they are cut
   * (and their deliveries released for another instance at once). Longer than DELIVERY_TIMEOUT_MS.
   */
  shutdownGraceMs: number;
  /** /readyz fails when the embedded database's disk has less free space than this. */
  minFreeDiskMb: number;
  /**
   * TEST ONLY: while a file exists at this path, the embedded database's writes fail with ENOSPC,
   * as on a full disk (src/db/storageGuard.ts). Never set it in production.
   */
  testOnlyFailDiskWritesWhen: string | undefined;
  /** Request bodies being read at once, in all (503 past it, before reading): bounds their memory. */
  bodyMaxInFlight: number;
  /** Request bodies one client address may have being read at once (429 past it, before reading). */
  bodyMaxInFlightPerAddress: number;
  /** How long a request body may take to arrive once its reading starts (408 past it). */
  bodyTimeoutMs: number;
  /** How long the proxy waits for the provider's answer (504 `provider_timeout` past it). */
  proxyTimeoutMs: number;
  /** The largest request body the proxy sends on (413 past it), in bytes. */
  proxyMaxBodyBytes: number;
  /**
   * The bytes of request bodies the proxy may hold at once, in this process, to send them again
   * (`x-switchyard-retries`); one deployment at most a quarter of it. Past it: 503 `server_busy`.
   */
  proxyBufferBudgetBytes: number;
  /** `CONNECTOR_<NAME>_*` variables, passed to the connector registry as they are. */
  connectorEnv: Record<string, string | undefined>;
};

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const values = parsed.data;
  const dataDir = resolve(values.DATA_DIR);

  const corsOrigins = parseOrigins(values.CORS_ORIGINS);

  const connectorEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("CONNECTOR_")));

  return {
    env: values.NODE_ENV,
    port: values.PORT,
    host: values.HOST,
    publicUrl: (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, ""),
    databaseUrl: values.DATABASE_URL,
    dataDir,
    redisUrl: values.REDIS_URL,
    redisKeyPrefix: values.REDIS_KEY_PREFIX,
    subscriptionBufferSize: values.SUBSCRIPTION_BUFFER_SIZE,
    subscriptionReplayLimit: values.SUBSCRIPTION_REPLAY_LIMIT,
    subscriptionAccessRecheckMs: values.SUBSCRIPTION_ACCESS_RECHECK,
    encryptionKey: resolveEncryptionKey(values.ENCRYPTION_KEY, values.NODE_ENV, dataDir),
    logLevel: values.LOG_LEVEL,
    connectUrlTtlSeconds: values.CONNECT_URL_TTL_SECONDS,
    deliveryRetryScheduleMs: values.DELIVERY_RETRY_SCHEDULE,
    deliveryTimeoutMs: values.DELIVERY_TIMEOUT_MS,
    deliveryMaxInFlightPerUrl: values.DELIVERY_MAX_IN_FLIGHT_PER_URL,
    pollIntervalMs: values.POLL_INTERVAL,
    pollingFailedAfterMs: values.POLLING_FAILED_AFTER,
    vacuumIntervalMs: values.VACUUM_INTERVAL,
    forwardingAllowPrivate: values.FORWARDING_ALLOW_PRIVATE,
    forwardingDisableAfterMs: values.FORWARDING_DISABLE_AFTER,
    retentionDays: values.RETENTION_DAYS,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    loginRateLimitPer15Minutes: values.LOGIN_RATE_LIMIT_PER_15_MINUTES,
    loginRateLimitPerAddressPerHour: values.LOGIN_RATE_LIMIT_PER_ADDRESS_PER_HOUR,
    loginAccountFreeFailures: values.LOGIN_ACCOUNT_FREE_FAILURES,
    trustProxyHops: values.TRUST_PROXY === "true" ? Number.POSITIVE_INFINITY : values.TRUST_PROXY === "false" ? 0 : Number(values.TRUST_PROXY ?? 0),
    // A public install must not stay open to strangers once its operator exists (docs/security.md).
    signup: values.SIGNUP ?? (values.NODE_ENV === "production" ? "closed" : "open"),
    signupRateLimitPerHour: values.SIGNUP_RATE_LIMIT_PER_HOUR,
    // With sign-up closed, a member who could create an organization could invite anyone into it.
    organizationCreation: values.ORGANIZATION_CREATION ?? ((values.SIGNUP ?? (values.NODE_ENV === "production" ? "closed" : "open")) === "closed" ? "owners" : "anyone"),
    sessionTtlHours: values.SESSION_TTL_HOURS,
    passwordHashCost: values.PASSWORD_HASH_COST,
    corsOrigins,
    graphqlIntrospection: values.GRAPHQL_INTROSPECTION === undefined ? values.NODE_ENV !== "production" : ["true", "1"].includes(values.GRAPHQL_INTROSPECTION),
    wsMaxPerAddress: values.WS_MAX_PER_ADDRESS,
    wsAnonymousTimeoutMs: values.WS_ANONYMOUS_TIMEOUT,
    subscriptionsMaxPerSocket: values.SUBSCRIPTIONS_MAX_PER_SOCKET,
    subscriptionsMaxPerPrincipal: values.SUBSCRIPTIONS_MAX_PER_PRINCIPAL,
    subscriptionsMaxPerAddress: values.SUBSCRIPTIONS_MAX_PER_ADDRESS,
    databaseStatementTimeoutMs: values.DATABASE_STATEMENT_TIMEOUT,
    metricsToken: values.METRICS_TOKEN,
    shutdownGraceMs: values.SHUTDOWN_GRACE,
    minFreeDiskMb: values.MIN_FREE_DISK_MB,
    testOnlyFailDiskWritesWhen: values.SWITCHYARD_TEST_ONLY_FAIL_DISK_WRITES_WHEN || undefined,
    bodyMaxInFlight: values.BODY_MAX_IN_FLIGHT,
    bodyMaxInFlightPerAddress: values.BODY_MAX_IN_FLIGHT_PER_ADDRESS,
    bodyTimeoutMs: values.BODY_TIMEOUT,
    proxyTimeoutMs: values.PROXY_TIMEOUT,
    proxyMaxBodyBytes: values.PROXY_MAX_BODY,
    maxResourcesPerConnection: values.MAX_RESOURCES_PER_CONNECTION,
    proxyBufferBudgetBytes: values.PROXY_BUFFER_BUDGET,
    connectorEnv,
  };
}

/**
 * `https://console.example.com, http://localhost:5173` → exact origins. A wildcard is refused: any
 * site could then act with an operator's session cookie.
 */
function parseOrigins(text: string): string[] {
  const origins: string[] = [];
  for (const item of text.split(",").map((part) => part.trim()).filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || !["http:", "https:"].includes(url.protocol) || url.origin !== item.replace(/\/$/, "")) {
      throw new ConfigError(
        `Invalid configuration:\n  CORS_ORIGINS: "${item}" is not an origin; list origins like https://console.example.com (scheme, host and port if any, no path, no wildcard), separated by commas`,
      );
    }
    origins.push(url.origin);
  }
  return origins;
}

/**
 * Production must be given the key: a generated one would silently make every stored secret
 * unreadable on the next machine. Development generates one into DATA_DIR (mode 0600) once.
 */
function resolveEncryptionKey(given: string | undefined, env: string, dataDir: string): Buffer {
  if (given) {
    const key = Buffer.from(given, "base64");
    if (key.length !== 32) {
      throw new ConfigError(
        "Invalid configuration:\n  ENCRYPTION_KEY: must be 32 bytes in base64 (make one with `openssl rand -base64 32`)",
      );
    }
    return key;
  }
  if (env === "production") {
    throw new ConfigError(
      "Invalid configuration:\n  ENCRYPTION_KEY: required when NODE_ENV=production (make one with `openssl rand -base64 32`)",
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "encryption.key");
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" });
  }
  chmodSync(file, 0o600);
  return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
}
