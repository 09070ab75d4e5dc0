import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";

/**
 * The only reader of process.env. Everything else receives a `Config`.
 * Bad values stop the process at start-up with a message that names the variable and what it wants.
 */

const duration = /^(\d+)(ms|s|m|h|d)$/;
const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
  const match = duration.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration like 500ms, 5s, 5m, 2h or 1d`);
  return Number(match[1]) * durationUnits[match[2]];
}

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
  ENCRYPTION_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  CONNECT_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(1800),
  DELIVERY_RETRY_SCHEDULE: z.string().default("5s,5m,30m,2h,5h,10h,10h"),
  POLL_INTERVAL: z.string().default("60s"),
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  FORWARDING_ALLOW_PRIVATE: booleanFlag,
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  LOGIN_RATE_LIMIT_PER_15_MINUTES: z.coerce.number().int().min(1).default(10),
  SIGNUP_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(20),
  SESSION_TTL_HOURS: z.coerce.number().int().min(1).default(24 * 14),
  PASSWORD_HASH_COST: z.coerce.number().int().min(10).max(20).default(17),
});

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
  encryptionKey: Buffer;
  logLevel: z.infer<typeof schema>["LOG_LEVEL"];
  connectUrlTtlSeconds: number;
  deliveryRetryScheduleMs: number[];
  deliveryTimeoutMs: number;
  /** How often providers that are read rather than pushed (Gmail without Pub/Sub) are polled. */
  pollIntervalMs: number;
  forwardingAllowPrivate: boolean;
  rateLimitPerMinute: number;
  loginRateLimitPer15Minutes: number;
  signupRateLimitPerHour: number;
  sessionTtlHours: number;
  /** log2 of scrypt's N; tests lower it to keep sign-ups fast. */
  passwordHashCost: number;
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

  let deliveryRetryScheduleMs: number[];
  let pollIntervalMs: number;
  try {
    deliveryRetryScheduleMs = values.DELIVERY_RETRY_SCHEDULE.split(",").map(parseDuration);
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  DELIVERY_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
  try {
    pollIntervalMs = parseDuration(values.POLL_INTERVAL);
  } catch (error) {
    throw new ConfigError(`Invalid configuration:\n  POLL_INTERVAL: ${(error as Error).message}`);
  }

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
    encryptionKey: resolveEncryptionKey(values.ENCRYPTION_KEY, values.NODE_ENV, dataDir),
    logLevel: values.LOG_LEVEL,
    connectUrlTtlSeconds: values.CONNECT_URL_TTL_SECONDS,
    deliveryRetryScheduleMs,
    deliveryTimeoutMs: values.DELIVERY_TIMEOUT_MS,
    pollIntervalMs,
    forwardingAllowPrivate: values.FORWARDING_ALLOW_PRIVATE,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    loginRateLimitPer15Minutes: values.LOGIN_RATE_LIMIT_PER_15_MINUTES,
    signupRateLimitPerHour: values.SIGNUP_RATE_LIMIT_PER_HOUR,
    sessionTtlHours: values.SESSION_TTL_HOURS,
    passwordHashCost: values.PASSWORD_HASH_COST,
    connectorEnv,
  };
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
