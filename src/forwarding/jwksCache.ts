import { createTtlCache } from "../cache/ttlCache.ts";
import type { Clock } from "../clock.ts";
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

/** JWKS URLs are declared by connectors (and overridable per connector): a handful at most. */
const MAX_URLS = 100;

/**
 * Public keys of providers that sign pushes with asymmetric keys (Google's Pub/Sub tokens),
 * fetched from the connector's JWKS URL and kept for an hour. One cache per app. Concurrent
 * requests for a URL share one fetch, and a failure is remembered for JWKS_FAILURE_MEMORY_MS.
 */
export function createJwksCache({ clock }: { clock: Clock }) {
  const entries = createTtlCache<string, JsonWebKeySet>({ ttlMs: TTL_MS, maxEntries: MAX_URLS, clock });
  /** A URL is here while its last refresh is younger than MIN_REFETCH_MS. */
  const refreshed = createTtlCache<string, true>({ ttlMs: MIN_REFETCH_MS, maxEntries: MAX_URLS, clock });
  const failures = createTtlCache<string, Error>({ ttlMs: JWKS_FAILURE_MEMORY_MS, maxEntries: MAX_URLS, clock });
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
    if (failed) return Promise.reject(failed);
    const fetching = download(url)
      .then((jwks) => {
        entries.set(url, jwks);
        failures.delete(url);
        return jwks;
      })
      .catch((error: Error) => {
        failures.set(url, error);
        throw error;
      })
      .finally(() => inFlight.delete(url));
    inFlight.set(url, fetching);
    return fetching;
  }

  return {
    async get(url: string): Promise<JsonWebKeySet> {
      return entries.get(url) ?? fetchJwks(url);
    },
    /** After a key-rotation miss; undefined when the cached set is too fresh to refetch. */
    async refresh(url: string): Promise<JsonWebKeySet | undefined> {
      if (refreshed.get(url)) return undefined;
      refreshed.set(url, true);
      return fetchJwks(url);
    },
  };
}
