// The parts of autocannon's API this benchmark adds to bench/data/autocannon.d.ts (declarations merge).
declare module "autocannon" {
  interface Options {
    /** Requests per second over all connections. */
    overallRate?: number;
    requests?: Array<{ method?: string; path?: string; setupRequest?: (request: { headers?: Record<string, string>; body?: string; method?: string; path?: string }) => unknown }>;
  }
  interface Result {
    "2xx": number;
  }
}
