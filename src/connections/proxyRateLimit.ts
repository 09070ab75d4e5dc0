/**
 * The per-connection proxy rate limit of a deployment's Connect settings (`proxyRateLimitPerMinute`):
 * over it a proxied request is 429 `rate_limited` with Retry-After, and its provider is not called.
 *
 * Counted with the project's rate limiter (src/ratelimit/): in Redis when instances share it, so the
 * limit holds across instances. The limit differs per deployment, so one limiter counts every
 * connection's requests in its minute and the deployment's limit is compared with the count. The
 * setting is read at most once a second per deployment (a change is seen within a second, as the
 * proxy's connection rows are); with no limit set nothing is counted.
 */
import type { Redis } from "ioredis";
import { RateLimiterRes } from "rate-limiter-flexible";
import type { Clock } from "../clock.ts";
import { createLimiter, rateLimited } from "../ratelimit/limiter.ts";
import type { ConnectSettings } from "./connectSettings.ts";

const SETTING_TTL_MS = 1_000;
/** Never reached by itself: the deployment's limit decides. */
const UNBOUNDED = 2 ** 30;

export interface ProxyRateLimit {
  /** Counts one request of the connection; throws RATE_LIMITED (with the seconds to wait) over the deployment's limit. */
  check(deploymentId: string, connector: string, account: string): Promise<void>;
}

export function createProxyRateLimit(deps: { settings: Pick<ConnectSettings, "read">; clock: Clock; redis?: Redis; onFallback?: () => void }): ProxyRateLimit {
  const limiter = createLimiter({ name: "proxy", points: UNBOUNDED, durationSeconds: 60, redis: deps.redis, onFallback: deps.onFallback });
  // Bounded by the deployments proxied through in the last second or so.
  const limits = new Map<string, { limit: number | null; until: number }>();

  async function limitOf(deploymentId: string): Promise<number | null> {
    const now = deps.clock.now().getTime();
    const known = limits.get(deploymentId);
    if (known && known.until > now) return known.limit;
    const limit = (await deps.settings.read(deploymentId)).proxyRateLimitPerMinute;
    if (limits.size > 10_000) limits.clear();
    limits.set(deploymentId, { limit, until: now + SETTING_TTL_MS });
    return limit;
  }

  return {
    async check(deploymentId, connector, account) {
      const limit = await limitOf(deploymentId);
      if (limit === null) return;
      let counted: RateLimiterRes;
      try {
        counted = await limiter.consume(`${deploymentId}\u0000${connector}\u0000${account}`);
      } catch (result) {
        if (result instanceof RateLimiterRes) throw rateLimited(result.msBeforeNext);
        throw result;
      }
      if (counted.consumedPoints > limit) throw rateLimited(counted.msBeforeNext);
    },
  };
}
