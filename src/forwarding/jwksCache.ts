import type { JsonWebKeySet } from "../connectors/types.ts";

const TTL_MS = 60 * 60_000;
/** A token naming an unknown key triggers a refetch at most this often (bogus kids cannot make us hammer the JWKS). */
const MIN_REFETCH_MS = 30_000;
/**
 * After a failed fetch, requests are refused without fetching again for this long: every push is
 * unauthenticated until verified, so without it each one would open a connection to the JWKS host
 * (for up to FETCH_TIMEOUT_MS) while that host is down or unreachable.
 */
export const JWKS_FAILURE_MEMORY_MS = 30_000;
const FETCH_TIMEOUT_MS = 10_000;

export interface JwksCacheOptions {
  /** Milliseconds; injectable so tests move time instead of waiting. */
  now?: () => number;
}

/**
 * Public keys of providers that sign pushes with asymmetric keys (Google's Pub/Sub tokens),
 * fetched from the connector's JWKS URL and kept for an hour. One cache per app. Concurrent
 * requests for a URL share one fetch, and a failure is remembered for JWKS_FAILURE_MEMORY_MS.
 */
export function createJwksCache({ now = Date.now }: JwksCacheOptions = {}) {
  const entries = new Map<string, { jwks: JsonWebKeySet; fetchedAt: number }>();
  const refreshedAt = new Map<string, number>();
  const failures = new Map<string, { at: number; error: Error }>();
  const inFlight = new Map<string, Promise<JsonWebKeySet>>();

  async function download(url: string): Promise<JsonWebKeySet> {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`the JWKS at ${url} answered HTTP ${response.status}`);
    const jwks = (await response.json()) as JsonWebKeySet;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`the JWKS at ${url} has no keys`);
    return jwks;
  }

  function fetchJwks(url: string): Promise<JsonWebKeySet> {
    const running = inFlight.get(url);
    if (running) return running;
    const failed = failures.get(url);
    if (failed && now() - failed.at < JWKS_FAILURE_MEMORY_MS) return Promise.reject(failed.error);
    const fetching = download(url)
      .then((jwks) => {
        entries.set(url, { jwks, fetchedAt: now() });
        failures.delete(url);
        return jwks;
      })
      .catch((error: Error) => {
        failures.set(url, { at: now(), error });
        throw error;
      })
      .finally(() => inFlight.delete(url));
    inFlight.set(url, fetching);
    return fetching;
  }

  return {
    async get(url: string): Promise<JsonWebKeySet> {
      const entry = entries.get(url);
      if (entry && now() - entry.fetchedAt < TTL_MS) return entry.jwks;
      return fetchJwks(url);
    },
    /** After a key-rotation miss; undefined when the cached set is too fresh to refetch. */
    async refresh(url: string): Promise<JsonWebKeySet | undefined> {
      const last = refreshedAt.get(url);
      if (last !== undefined && now() - last < MIN_REFETCH_MS) return undefined;
      refreshedAt.set(url, now());
      return fetchJwks(url);
    },
  };
}
