/**
 * A unique-constraint violation, however it surfaces: Prisma's P2002 (the pg adapter maps it), or
 * PostgreSQL's SQLSTATE 23505 carried raw by the PGlite adapter, which does not map errors.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string; kind?: string; originalCode?: string } } | undefined;
  return (
    e?.code === "P2002" ||
    e?.code === "23505" ||
    e?.cause?.code === "23505" ||
    e?.cause?.originalCode === "23505" ||
    e?.cause?.kind === "UniqueConstraintViolation"
  );
}

/**
 * PostgreSQL cancelled the statement because it ran past the request pool's statement_timeout
 * (SQLSTATE 57014, DATABASE_STATEMENT_TIMEOUT), raw from pg or wrapped by Prisma's pg adapter.
 */
export function isStatementTimeout(error: unknown): boolean {
  const e = error as { code?: string; message?: string; cause?: { code?: string; originalCode?: string; originalMessage?: string } } | undefined;
  if (e?.code === "57014" || e?.cause?.code === "57014" || e?.cause?.originalCode === "57014") return true;
  return /canceling statement due to statement timeout/.test(`${e?.message ?? ""} ${e?.cause?.originalMessage ?? ""}`);
}

/** What the caller of a cancelled statement reads, on both surfaces (no SQL, no setting's value). */
export const DATABASE_TIMEOUT_MESSAGE =
  "The database took too long to answer this request, so it was stopped. Ask for less (a narrower filter, a smaller page or window) or try again in a moment.";

// Node's socket errors when the server is gone, refuses or cannot be resolved.
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
// SQLSTATEs of a server that is going away or not taking work: class 08 (connection exception),
// admin/crash shutdown, cannot connect now, too many connections.
const UNAVAILABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|53300)$/;
// What the driver adapters report for the same (Prisma's DriverAdapterError `cause.kind`).
const UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
// pg's own errors, which carry no code.
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|the database system is (shutting down|starting up|in recovery mode)|terminating connection due to administrator command/i;

/** What a driver's error, or a wrapper of one, may carry. */
interface DriverError {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  errorCode?: unknown;
  message?: unknown;
  hint?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/**
 * Whether `test` holds for `error` or for an error it wraps: Prisma's `cause` and
 * `meta.driverAdapterError`, an AggregateError's errors, down to the driver's own.
 */
function wrapsAny(error: unknown, test: (error: DriverError) => boolean, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 5) return false;
  // fetch's own failure (a provider, a receiver) carries socket codes too: never the database's.
  if (error instanceof TypeError && error.message === "fetch failed") return false;
  const e = error as DriverError;
  if (test(e)) return true;
  if (error instanceof AggregateError && error.errors.some((inner) => wrapsAny(inner, test, depth + 1))) return true;
  return wrapsAny(e.cause, test, depth + 1) || wrapsAny(e.meta?.driverAdapterError, test, depth + 1);
}

/**
 * The database could not be reached (stopped, restarting, unreachable, out of connections), as
 * opposed to a statement that failed: the caller should be told 503 and to retry, not 500.
 */
export const isDatabaseUnavailable = (error: unknown): boolean =>
  wrapsAny(
    error,
    (e) =>
      (typeof e.code === "string" && (SOCKET_CODES.has(e.code) || UNAVAILABLE_SQLSTATES.test(e.code) || e.code === "P1001" || e.code === "P1017")) ||
      (typeof e.errorCode === "string" && (e.errorCode === "P1001" || e.errorCode === "P1017")) ||
      (typeof e.originalCode === "string" && UNAVAILABLE_SQLSTATES.test(e.originalCode)) ||
      (typeof e.kind === "string" && UNAVAILABLE_KINDS.has(e.kind)) ||
      (typeof e.message === "string" && UNAVAILABLE_MESSAGES.test(e.message)),
  );

// What PostgreSQL says when a data file cannot grow: SQLSTATE 53100 (disk_full) for ENOSPC, and the
// same hint whatever the cause (a file-size limit gives XX000 with it).
const FULL_HINT = /Check free disk space/i;

/**
 * The database server cannot store anything more (its disk is full): writes fail until space is
 * freed there, reads still work. Like an outage, 503 and retry later, not 500. (A full WAL disk makes
 * PostgreSQL restart instead: that is isDatabaseUnavailable's.)
 */
export const isDatabaseFull = (error: unknown): boolean =>
  wrapsAny(error, (e) => e.code === "53100" || e.originalCode === "53100" || (typeof e.hint === "string" && FULL_HINT.test(e.hint)));

/** Unreachable or full: the same statement again, or row by row, would fail the same way now. */
export const isDatabaseOutOfService = (error: unknown): boolean => isDatabaseUnavailable(error) || isDatabaseFull(error);
