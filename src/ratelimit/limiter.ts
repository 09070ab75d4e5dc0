import type { Redis } from "ioredis";
import ipaddr from "ipaddr.js";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../errors.ts";

export interface RateLimit {
  /** Spends one point for `key`; throws RATE_LIMITED with the seconds to wait when none is left. */
  consume(key: string): Promise<void>;
  /** Gives the points back (a successful login clears its failures). */
  reset(key: string): Promise<void>;
}

export interface LimiterOptions {
  name: string;
  points: number;
  durationSeconds: number;
  redis?: Redis;
  /** Called each time a Redis limiter counts in this instance's memory because Redis failed. */
  onFallback?: () => void;
}

/**
 * The in-memory stand-in rate-limiter-flexible turns to when a Redis command fails: it counts per
 * instance (each instance allows the full budget) until Redis is back, and says when it is used.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly noted: () => void,
  ) {
    super(options);
  }
  override consume(...args: Parameters<RateLimiterMemory["consume"]>) {
    this.noted();
    return super.consume(...args);
  }
  override penalty(...args: Parameters<RateLimiterMemory["penalty"]>) {
    this.noted();
    return super.penalty(...args);
  }
  override get(...args: Parameters<RateLimiterMemory["get"]>) {
    this.noted();
    return super.get(...args);
  }
  override delete(...args: Parameters<RateLimiterMemory["delete"]>) {
    this.noted();
    return super.delete(...args);
  }
}

/** A rate-limiter-flexible limiter: in memory for one instance; in Redis when several instances must share the budget. */
export function createLimiter(options: LimiterOptions): RateLimiterAbstract {
  return options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: `sy:rl:${options.name}`,
        points: options.points,
        duration: options.durationSeconds,
        // If Redis is down, fall back to this instance's memory rather than failing every request,
        // and do not wait for a reconnect first (docs/operations.md, "What happens when Redis stops").
        rejectIfRedisNotReady: true,
        insuranceLimiter: new InsuranceLimiter({ points: options.points, duration: options.durationSeconds }, options.onFallback ?? (() => {})),
      })
    : new RateLimiterMemory({ keyPrefix: options.name, points: options.points, duration: options.durationSeconds });
}

export function rateLimited(msBeforeNext: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError("RATE_LIMITED", `Too many requests. Retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });
}

/** Spends `points` of `key`; the limiter's answer, or RATE_LIMITED when the budget is spent. */
export async function consumeOrThrow(limiter: RateLimiterAbstract, key: string, points = 1): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key, points);
  } catch (result) {
    if (result instanceof RateLimiterRes) throw rateLimited(result.msBeforeNext);
    throw result;
  }
}

export function createRateLimit(options: LimiterOptions): RateLimit {
  const limiter = createLimiter(options);
  return {
    async consume(key) {
      await consumeOrThrow(limiter, key);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}

/**
 * The key an address is limited under. One IPv6 client usually holds a whole /64 (SLAAC, privacy
 * addresses), so limiting single IPv6 addresses would let it rotate past any limit.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip) || ipaddr.IPv4.isValid(ip)) return ip;
  const parts = ipaddr.IPv6.parse(ip).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(":")}::/64`;
}
