import type { Logger } from "pino";
import { isDatabaseUnavailable } from "./errors.ts";
import type { Sql } from "./sql.ts";

/**
 * A database outage as the service lives it: requests that need the database are answered 503
 * `database_unavailable` with Retry-After (SERVICE_UNAVAILABLE on GraphQL) instead of 500, one
 * warning is logged when the outage is first seen and one line when it ends — never one per
 * request — and /readyz answers within READINESS_TIMEOUT_MS whatever state the connections are in.
 */
export interface DatabaseOutage {
  /** Whether `error` means the database cannot be reached; if so, the outage is noted (logged once). */
  noted(error: unknown): boolean;
  /** `select 1` within READINESS_TIMEOUT_MS: false when it failed or took longer. */
  reachable(): Promise<boolean>;
  /** Stops the background probe (shutdown). */
  close(): void;
}

/** How long /readyz waits for the database: an orchestrator's probe times out at 1 s by default. */
export const READINESS_TIMEOUT_MS = 800;
/** What Retry-After says to callers refused during an outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
const PROBE_INTERVAL_MS = 1000;

export function createDatabaseOutage(sql: Sql, logger: Logger, now: () => number = Date.now): DatabaseOutage {
  let since: number | undefined; // set while an outage is under way
  let refused = 0;
  let probe: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  async function reachable(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
    });
    try {
      return await Promise.race([
        sql.query("select 1").then(
          () => true,
          () => false,
        ),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  function startProbe() {
    if (probe || closed) return;
    let checking = false;
    probe = setInterval(() => {
      if (checking) return;
      checking = true;
      void reachable().then((up) => {
        checking = false;
        if (!up || since === undefined) return;
        logger.info({ outageMs: now() - since, refused }, "the database is reachable again");
        since = undefined;
        refused = 0;
        clearInterval(probe);
        probe = undefined;
      });
    }, PROBE_INTERVAL_MS);
    probe.unref();
  }

  return {
    noted(error) {
      if (!isDatabaseUnavailable(error)) return false;
      refused++;
      if (since === undefined) {
        since = now();
        const cause = error as { code?: unknown; message?: unknown };
        // The driver's code and message only: no stack, no SQL, no connection string.
        logger.warn(
          { code: typeof cause.code === "string" ? cause.code : undefined },
          "the database is unreachable: requests that need it are answered 503 with Retry-After until it is back",
        );
        startProbe();
      }
      return true;
    },
    reachable,
    close() {
      closed = true;
      clearInterval(probe);
      probe = undefined;
    },
  };
}
