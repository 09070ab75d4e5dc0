/**
 * Provider timestamps are untrusted input that arrives on *verified* requests: a malformed or
 * absurd one (Jira `timestamp: 1e20`, a GitHub `created_at` in the year -271821) must not fail the
 * request, or the provider retries it forever. Outside the range every store and every ISO-8601
 * writer agrees on (years 1970–9999), the event is dated when Switchyard received it instead.
 */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface ProviderDateOptions {
  /** How a bare number (or a numeric string like Slack's "1700000000.000200") counts time. */
  epoch?: "seconds" | "milliseconds";
}

/**
 * A provider's date as a Date, or undefined when it is missing, malformed or out of range (the
 * caller, which has the clock, dates it when it was received). ISO-8601 strings are read as such
 * (UTC when they name no offset); numbers only when `epoch` says what they count.
 */
export function readProviderDate(value: unknown, options: ProviderDateOptions = {}): Date | undefined {
  let ms: number;
  if (value instanceof Date) {
    ms = value.getTime();
  } else if (typeof value === "number" || (typeof value === "string" && options.epoch && /^-?\d+(\.\d+)?$/.test(value))) {
    if (!options.epoch) return undefined;
    ms = Number(value) * (options.epoch === "seconds" ? 1000 : 1);
  } else if (typeof value === "string" && value.length <= 64) {
    // A date-time without an offset (Xero's `eventDateUtc`) is UTC, never the server's own zone.
    ms = Date.parse(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value) ? `${value}Z` : value);
  } else {
    return undefined;
  }
  if (!Number.isFinite(ms) || ms < EARLIEST || ms > LATEST) return undefined;
  return new Date(Math.round(ms));
}
