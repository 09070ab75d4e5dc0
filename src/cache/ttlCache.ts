import type { Clock } from "../clock.ts";

/**
 * A bounded map whose entries expire `ttlMs` after they were read from their source. The clock is
 * a dependency, so tests move time instead of waiting for it. At `maxEntries`, the entry stored
 * longest ago makes room (a Map iterates in insertion order, and `set` re-inserts), so a flood of
 * distinct keys cannot grow memory and never empties the cache of the keys in use all at once.
 */
export interface TtlCacheOptions {
  ttlMs: number;
  maxEntries: number;
  clock: Clock;
}

export function createTtlCache<K, V>({ ttlMs, maxEntries, clock }: TtlCacheOptions) {
  const entries = new Map<K, { at: number; value: V }>();
  return {
    /** The value while it is younger than ttlMs; undefined once expired (and the entry dropped). */
    get(key: K): V | undefined {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (clock.now().getTime() - hit.at < ttlMs) return hit.value;
      entries.delete(key);
      return undefined;
    },
    /** `at`: when the value was read from its source (default now); its age counts from then. */
    set(key: K, value: V, at: number = clock.now().getTime()): void {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as K);
      entries.set(key, { at, value });
    },
    delete(key: K): void {
      entries.delete(key);
    },
    /** Drops every entry whose value matches (a rare invalidation: it walks the whole map). */
    deleteWhere(matches: (value: V) => boolean): void {
      for (const [key, entry] of entries) if (matches(entry.value)) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}

export type TtlCache<K, V> = ReturnType<typeof createTtlCache<K, V>>;
