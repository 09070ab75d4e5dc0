import { EventEmitter } from "node:events";
import { isIP } from "node:net";
import { Agent, type Dispatcher, request } from "undici";
import type { Config } from "../config.ts";
import { blockedAddressReason, ForbiddenAddressError, guardedLookup } from "../net/ssrf.ts";
import { readCapped } from "../net/readCapped.ts";
import { storableOptional } from "../text/storable.ts";
import { version } from "../version.ts";

/** How much of a receiver's answer is kept in the attempt log. The rest is not even read. */
export const RESPONSE_BODY_LIMIT = 4096;

export const USER_AGENT = `Switchyard/${version}`;

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendResult {
  statusCode: number | null;
  /** Set when no HTTP answer came back (timeout, refused, blocked address, …). */
  error: string | null;
  /** The first RESPONSE_BODY_LIMIT bytes of the answer, as storable text (NULs and the like replaced). */
  responseBody: string | null;
  /** The Retry-After header of a 429 or 503 answer, as sent (seconds or an HTTP date; ../retryPolicy.ts reads it). */
  retryAfter: string | null;
  durationMs: number;
}

/**
 * The HTTP agent deliveries go through: keep-alive connections per receiver and, in production,
 * a resolver that refuses internal addresses — the address it checked is the one dialled.
 */
export function createDeliveryDispatcher(config: Config): { dispatcher: Dispatcher; guarded: boolean } {
  const guarded = config.env === "production" && !config.forwardingAllowPrivate;
  const dispatcher = new Agent({
    keepAliveTimeout: 10_000,
    connect: guarded ? { lookup: guardedLookup as never, timeout: config.deliveryTimeoutMs } : { timeout: config.deliveryTimeoutMs },
  });
  return { dispatcher, guarded };
}

/**
 * What ends an attempt at its deadline. undici takes an EventEmitter with an `abort` event as a
 * request's signal as well as an AbortSignal, and one costs a fiftieth as much to make: an
 * AbortController took 6 µs on these machines, and with its listeners 1.7 % of the service's CPU at
 * the maximum forwarding rate (docs/benchmarks.md). undici then fails the request with an AbortError.
 */
class Deadline extends EventEmitter {
  aborted = false;
  abort() {
    this.aborted = true;
    this.emit("abort");
  }
}

/** One POST, never following redirects, never longer than `timeoutMs` in all. Never throws. */
export async function send(dispatcher: Dispatcher, guarded: boolean, outbound: OutboundRequest, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  // Whatever the receiver answered (or its connection error says) is recorded in a batch with other
  // tenants' attempts: one unstorable character must not fail them all (src/text/storable.ts).
  const done = (result: Omit<SendResult, "durationMs">): SendResult => ({
    statusCode: result.statusCode,
    error: storableOptional(result.error),
    responseBody: storableOptional(result.responseBody),
    retryAfter: result.retryAfter,
    durationMs: Math.round(performance.now() - started),
  });
  // One timer for the whole attempt, cleared when it ends: AbortSignal.timeout's stays until it fires,
  // with its signal held for it (at 1,000 deliveries/s, 15,000 of each alive). Measured in one
  // max-rate profile each: 1.3 → 0.9 % of the service's CPU to make them, garbage collection 9.0 → 7.6 %.
  const deadline = new Deadline();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    if (guarded) {
      // net.connect skips the resolver for IP literals, so those are judged here.
      const host = new URL(outbound.url).hostname.replace(/^\[|\]$/g, "");
      const reason = isIP(host) ? blockedAddressReason(host) : undefined;
      if (reason) throw new ForbiddenAddressError(host, host, reason);
    }
    const response = await request(outbound.url, {
      method: "POST",
      headers: outbound.headers,
      body: outbound.body,
      dispatcher,
      signal: deadline,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const responseBody = await readCapped(response.body, RESPONSE_BODY_LIMIT);
    const retryAfter = response.statusCode === 429 || response.statusCode === 503 ? response.headers["retry-after"] : undefined;
    return done({ statusCode: response.statusCode, error: null, responseBody, retryAfter: typeof retryAfter === "string" ? retryAfter : null });
  } catch (error) {
    return done({ statusCode: null, error: describe(error, timeoutMs), responseBody: null, retryAfter: null });
  } finally {
    clearTimeout(timer);
  }
}

/** A short, secret-free description for the attempt log. */
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof ForbiddenAddressError) return error.message;
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "AbortError" || e?.code === "UND_ERR_HEADERS_TIMEOUT" || e?.code === "UND_ERR_BODY_TIMEOUT") {
    return `no answer within ${timeoutMs} ms`;
  }
  if (e?.cause instanceof ForbiddenAddressError) return e.cause.message;
  if ((e as { code?: string })?.code === "EFORBIDDENADDRESS") return String(e.message);
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(error);
  return code ? `${code}: ${message}` : message;
}
