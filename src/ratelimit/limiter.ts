import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../errors.ts";

export interface RateLimit {
  /** Spends one point for `key`; throws RATE_LIMITED with the seconds to wait when none is left. */
  consume(key: string): Promise<void>;
  /** Gives the points back (a successful login clears its failures). */
  reset(key: string): Promise<void>;
}

/** In memory for one instance; in Redis when several instances must share the budget. */
export function createRateLimit(options: { name: string; points: number; durationSeconds: number; redis?: Redis }): RateLimit {
  const limiter = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: `sy:rl:${options.name}`,
        points: options.points,
        duration: options.durationSeconds,
        // If Redis is down, fall back to this instance's memory rather than failing every request.
        insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.durationSeconds }),
      })
    : new RateLimiterMemory({ keyPrefix: options.name, points: options.points, duration: options.durationSeconds });

  return {
    async consume(key) {
      try {
        await limiter.consume(key);
      } catch (result) {
        if (result instanceof RateLimiterRes) {
          const retryAfterSeconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
          throw new AppError("RATE_LIMITED", `Too many requests. Retry in ${retryAfterSeconds} s.`, { retryAfterSeconds });
        }
        throw result;
      }
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}
