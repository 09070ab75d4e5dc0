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
  /**
   * Counts one request of the connection; rejects with RATE_LIMITED (with the seconds to wait) over
   * the deployment's limit. Undefined, with nothing to wait for, when the deployment has no limit
   * and its setting was read within the second (the proxy's hot path).
   */
  check(deploymentId: string, connector: string, account: string): Promise<void> | undefined;
}

export function createProxyRateLimit(deps: { settings: Pick<ConnectSettings, "read">; clock: Clock; redis?: Redis; onFallback?: () => void }): ProxyRateLimit {
  const limiter = createLimiter({ name: "proxy", points: UNBOUNDED, durationSeconds: 60, redis: deps.redis, onFallback: deps.onFallback });
  // Bounded by the deployments proxied through in the last second or so.
  const limits = new Map<string, { limit: number | null; until: number }>();
  // One read of a deployment's setting at a time: the requests arriving meanwhile wait for it.
  const reading = new Map<string, Promise<number | null>>();

  function limitOf(deploymentId: string): number | null | Promise<number | null> {
    const now = deps.clock.now().getTime();
    const known = limits.get(deploymentId);
    if (known && known.until > now) return known.limit;
    let pending = reading.get(deploymentId);
    if (!pending) {
      pending = deps.settings
        .read(deploymentId)
        .then(({ proxyRateLimitPerMinute: limit }) => {
          if (limits.size > 10_000) limits.clear();
          limits.set(deploymentId, { limit, until: deps.clock.now().getTime() + SETTING_TTL_MS });
          return limit;
        })
        .finally(() => reading.delete(deploymentId));
      reading.set(deploymentId, pending);
    }
    return pending;
  }

  async function counted(deploymentId: string, connector: string, account: string): Promise<void> {
    const limit = await limitOf(deploymentId);
    if (limit === null) return;
    let spent: RateLimiterRes;
    try {
      spent = await limiter.consume(`${deploymentId}\u0000${connector}\u0000${account}`);
    } catch (result) {
      if (result instanceof RateLimiterRes) throw rateLimited(result.msBeforeNext);
      throw result;
    }
    if (spent.consumedPoints > limit) throw rateLimited(spent.msBeforeNext);
  }

  return {
    check(deploymentId, connector, account) {
      const known = limits.get(deploymentId);
      if (known && known.limit === null && known.until > deps.clock.now().getTime()) return undefined;
      return counted(deploymentId, connector, account);
    },
  };
}
