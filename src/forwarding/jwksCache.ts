import type { JsonWebKeySet } from "../connectors/types.ts";

const TTL_MS = 60 * 60_000;
/** A token naming an unknown key triggers a refetch at most this often (bogus kids cannot make us hammer the JWKS). */
const MIN_REFETCH_MS = 30_000;

/**
 * Public keys of providers that sign pushes with asymmetric keys (Google's Pub/Sub tokens),
 * fetched from the connector's JWKS URL and kept for an hour. One cache per app.
 */
export function createJwksCache() {
  const entries = new Map<string, { jwks: JsonWebKeySet; fetchedAt: number }>();
  const refreshedAt = new Map<string, number>();

  async function fetchJwks(url: string): Promise<JsonWebKeySet> {
    const response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`the JWKS at ${url} answered HTTP ${response.status}`);
    const jwks = (await response.json()) as JsonWebKeySet;
    if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`the JWKS at ${url} has no keys`);
    entries.set(url, { jwks, fetchedAt: Date.now() });
    return jwks;
  }

  return {
    async get(url: string): Promise<JsonWebKeySet> {
      const entry = entries.get(url);
      if (entry && Date.now() - entry.fetchedAt < TTL_MS) return entry.jwks;
      return fetchJwks(url);
    },
    /** After a key-rotation miss; undefined when the cached set is too fresh to refetch. */
    async refresh(url: string): Promise<JsonWebKeySet | undefined> {
      const last = refreshedAt.get(url);
      if (last !== undefined && Date.now() - last < MIN_REFETCH_MS) return undefined;
      refreshedAt.set(url, Date.now());
      return fetchJwks(url);
    },
  };
}
