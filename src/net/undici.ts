import type { Agent, Dispatcher } from "undici";

type Undici = typeof import("undici");

/**
 * undici, the HTTP client of deliveries, the proxy and calls to hosts a tenant names, is loaded on
 * first use: evaluating it was the largest single part of an embedded start's main thread (77 of
 * ~1,100 ms on an AMD EPYC, docs/benchmarks.md), and a start sends no request. The module loader
 * keeps it once loaded. In the bundle (scripts/build-server.ts) the chunk of this CommonJS package
 * exports it as `default` only; Node's own import names its exports too.
 */
export const loadUndici = (): Promise<Undici> => import("undici").then((loaded) => (loaded as { default?: Undici }).default ?? loaded);

/** An undici `Agent` made when first asked for, and closed only if it was made. */
export interface LazyAgent {
  get(): Promise<Dispatcher>;
  close(): Promise<void>;
}

export function lazyAgent(options: Agent.Options): LazyAgent {
  let made: Promise<Dispatcher> | undefined;
  return {
    get: () => (made ??= loadUndici().then(({ Agent }) => new Agent(options))),
    close: async () => {
      if (made) await (await made).close();
    },
  };
}
