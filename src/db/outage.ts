import type { Logger } from "pino";
import { AppError, databaseUnavailable } from "../errors.ts";
import { isDatabaseFull, isDatabaseUnavailable } from "./errors.ts";
import type { Sql } from "./sql.ts";

/**
 * A database outage as the service lives it: requests that need the database are answered 503
 * `database_unavailable` with Retry-After (SERVICE_UNAVAILABLE on GraphQL) instead of 500, one
 * warning is logged when the outage is first seen and one line when it ends — never one per
 * request — and /readyz answers within READINESS_TIMEOUT_MS whatever state the connections are in.
 *
 * A database server whose disk is full is taken the same way, as far as it goes: what fails to be
 * written is answered 503 `disk_space_low` with Retry-After, and the log has a warning at most once
 * a minute while it lasts (a failed write is the only sign of it: `select 1` still answers).
 */
export interface DatabaseOutage {
  /**
   * Whether `error` means the database cannot be reached, or cannot store anything (a full disk);
   * if so, it is noted (logged once an outage, at most once a minute for a full disk).
   */
  noted(error: unknown): boolean;
  /** What to answer for `error` when noted() takes it: 503 with Retry-After, saying which; else undefined. */
  refusal(error: unknown): AppError | undefined;
  /**
   * Whether the server refused a write for a full disk within the last DISK_FULL_RETRY_AFTER_SECONDS
   * (what those callers were told to wait): /readyz says so while it stays 200.
   */
  diskFull(): boolean;
  /** `select 1` within READINESS_TIMEOUT_MS: false when it failed or took longer. */
  reachable(): Promise<boolean>;
  /** Stops the background probe (shutdown). */
  close(): void;
}

/** How long /readyz waits for the database: an orchestrator's probe times out at 1 s by default. */
export const READINESS_TIMEOUT_MS = 800;
/** What Retry-After says to callers refused during an outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/** …and while the database's disk is full: freeing space takes a person. */
const DISK_FULL_RETRY_AFTER_SECONDS = 60;
const DISK_FULL_WARNING_INTERVAL_MS = 60_000;
const PROBE_INTERVAL_MS = 1000;

export function createDatabaseOutage(sql: Sql, logger: Logger, now: () => number = Date.now): DatabaseOutage {
  let since: number | undefined; // set while an outage is under way
  let refused = 0;
  let probe: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let fullWarnedAt: number | undefined;
  let fullRefused = 0;
  let fullLastSeenAt: number | undefined;

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

  function notedFull(error: unknown): boolean {
    if (!isDatabaseFull(error)) return false;
    fullRefused++;
    fullLastSeenAt = now();
    if (fullWarnedAt === undefined || now() - fullWarnedAt >= DISK_FULL_WARNING_INTERVAL_MS) {
      fullWarnedAt = now();
      const cause = error as { code?: unknown };
      logger.warn(
        { code: typeof cause.code === "string" ? cause.code : undefined, refused: fullRefused },
        "the database cannot store anything: its disk is full. Writes are answered 503 with Retry-After until space is freed on the database server",
      );
      fullRefused = 0;
    }
    return true;
  }

  function notedUnavailable(error: unknown): boolean {
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
  }

  return {
    refusal(error) {
      if (notedFull(error)) {
        return new AppError("DISK_SPACE_LOW", `The database's disk is full; nothing was stored. Retry in ${DISK_FULL_RETRY_AFTER_SECONDS} s.`, {
          retryAfterSeconds: DISK_FULL_RETRY_AFTER_SECONDS,
        });
      }
      return notedUnavailable(error) ? databaseUnavailable(DATABASE_RETRY_AFTER_SECONDS) : undefined;
    },
    noted: (error) => notedFull(error) || notedUnavailable(error),
    diskFull: () => fullLastSeenAt !== undefined && now() - fullLastSeenAt < DISK_FULL_RETRY_AFTER_SECONDS * 1000,
    reachable,
    close() {
      closed = true;
      clearInterval(probe);
      probe = undefined;
    },
  };
}
