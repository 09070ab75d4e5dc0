import type { Agent, Dispatcher } from "undici";

export type Undici = typeof import("undici");

/**
 * undici, the HTTP client of deliveries, the proxy and calls to hosts a tenant names, is loaded on
 * first use: evaluating it was the largest single part of an embedded start's main thread (77 of
 * ~1,100 ms on an AMD EPYC, docs/benchmarks.md), and a start sends no request. The module loader
 * keeps it once loaded. In the bundle (scripts/build-server.ts) the chunk of this CommonJS package
 * exports it as `default` only; Node's own import names its exports too.
 */
export const loadUndici = (): Promise<Undici> => import("undici").then((loaded) => (loaded as { default?: Undici }).default ?? loaded);

/**
 * The value to give undici as a per-phase timeout (headersTimeout, bodyTimeout) so that it ends the
 * phase no sooner than `ms`. undici's HTTP/1 client times both phases with its own coarse timers,
 * whatever their length (lib/dispatcher/client-h1.js: TIMEOUT_HEADERS and TIMEOUT_BODY use
 * setFastTimeout), which tick every 499 ms and date a timer's start back to the tick before it
 * (lib/util/timers.js): a timeout of `ms` can end up to 499 ms early (800 ms after 700, 1,496 ms after
 * 998). One tick more makes it at least `ms` and at most about a second more.
 */
export function undiciTimeoutOfAtLeast(ms: number): number {
  return ms + UNDICI_TICK_MS;
}

/** The tick of undici's coarse timers (its lib/util/timers.js: TICK_MS). */
const UNDICI_TICK_MS = 499;

/** An undici `Agent` made when first asked for, and closed only if it was made. */
export interface LazyAgent {
  get(): Promise<Dispatcher>;
  /** undici's `fetch` through this agent. */
  fetch(url: URL, init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** `load` is undici's loader; a test hands in one that fails. */
export function lazyAgent(options: Agent.Options, load: () => Promise<Undici> = loadUndici): LazyAgent {
  let undici: Promise<Undici> | undefined;
  let agent: Promise<Dispatcher> | undefined;
  const loaded = () => (undici ??= load());
  // The same settled promise on every call: each delivery attempt asks for it.
  const get = () => (agent ??= loaded().then(({ Agent }) => new Agent(options)));
  return {
    get,
    fetch: async (url, init) => {
      const [{ fetch }, dispatcher] = await Promise.all([loaded(), get()]);
      return fetch(url, { ...init, dispatcher } as never) as unknown as Response;
    },
    close: async () => {
      // Nothing to close when it was never made, or when loading undici failed.
      const made = await agent?.catch(() => undefined);
      await made?.close();
    },
  };
}
