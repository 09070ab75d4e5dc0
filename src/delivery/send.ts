import { isIP } from "node:net";
import type { Dispatcher } from "undici";
import type { Config } from "../config.ts";
import { blockedAddressReason, ForbiddenAddressError, guardedLookup } from "../net/ssrf.ts";
import { type LazyAgent, lazyAgent, loadUndici, type Undici, undiciTimeoutOfAtLeast } from "../net/undici.ts";
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
export function createDeliveryAgent(config: Config, load: () => Promise<Undici> = loadUndici): { agent: LazyAgent; guarded: boolean } {
  const guarded = config.env === "production" && !config.forwardingAllowPrivate;
  const agent = lazyAgent(
    {
      keepAliveTimeout: 10_000,
      connect: guarded ? { lookup: guardedLookup as never, timeout: config.deliveryTimeoutMs } : { timeout: config.deliveryTimeoutMs },
    },
    load,
  );
  return { agent, guarded };
}

/**
 * One POST, never following redirects, never longer than `timeoutMs` in all. Never throws.
 *
 * Through the dispatcher's own handler rather than undici's `request`: the answer's status, its
 * Retry-After and the first RESPONSE_BODY_LIMIT bytes are all an attempt keeps, and `request` wraps
 * them in a promise, a handler object and a body stream read through an async iterator, on every
 * attempt of the service's busiest path (docs/benchmarks.md).
 */
export function send(dispatcher: Dispatcher, guarded: boolean, outbound: OutboundRequest, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    let retryAfter: string | null = null;
    const chunks: Buffer[] = [];
    let kept = 0;
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    // Whatever the receiver answered (or its connection error says) is recorded in a batch with other
    // tenants' attempts: one unstorable character must not fail them all (src/text/storable.ts). Once
    // the status came, the answer is what arrived of it, whatever ended it (the deadline, a reset).
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const answered = statusCode !== null;
      resolve({
        statusCode,
        error: answered ? null : storableOptional(error ?? "no answer"),
        responseBody: answered ? storableOptional(Buffer.concat(chunks).toString("utf8")) : null,
        retryAfter,
        durationMs: Math.round(performance.now() - started),
      });
    };
    // The whole attempt's deadline (undici's own timeouts are per phase), cleared when it ends.
    const timer = setTimeout(() => {
      finish(`no answer within ${timeoutMs} ms`);
      controller?.abort(new Error("the delivery timed out"));
    }, timeoutMs);
    try {
      const url = new URL(outbound.url);
      if (guarded) {
        // net.connect skips the resolver for IP literals, so those are judged here.
        const host = url.hostname.replace(/^\[|\]$/g, "");
        const reason = isIP(host) ? blockedAddressReason(host) : undefined;
        if (reason) throw new ForbiddenAddressError(host, host, reason);
      }
      // undici's own per-phase timeouts only back the deadline up, so they must not end an attempt
      // before it (given as they are they could, by half a second: test/delivery/send.test.ts). Should
      // one end it at the deadline's moment, the attempt reads the same (describe below).
      const backstopMs = undiciTimeoutOfAtLeast(timeoutMs);
      dispatcher.dispatch(
        { origin: url.origin, path: `${url.pathname}${url.search}`, method: "POST", headers: outbound.headers, body: outbound.body, headersTimeout: backstopMs, bodyTimeout: backstopMs },
        {
          onRequestStart(dispatched) {
            controller = dispatched;
          },
          onResponseStart(_controller, status, headers) {
            statusCode = status;
            const value = status === 429 || status === 503 ? headers["retry-after"] : undefined;
            retryAfter = typeof value === "string" ? value : null;
          },
          onResponseData(current, chunk) {
            chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT - kept));
            kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT - kept);
            // The rest is not read: the connection goes, as it would for any answer left unread.
            if (kept >= RESPONSE_BODY_LIMIT) {
              finish(null);
              current.abort(new Error("the rest of the answer is not kept"));
            }
          },
          onResponseEnd() {
            finish(null);
          },
          onResponseError(_controller, error) {
            finish(describe(error, timeoutMs));
          },
        },
      );
    } catch (error) {
      finish(describe(error, timeoutMs));
    }
  });
}

/** A short, secret-free description for the attempt log. */
function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof ForbiddenAddressError) return error.message;
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  // The attempt's own deadline finishes it before aborting it; undici's per-phase timeouts end here.
  if (e?.code === "UND_ERR_HEADERS_TIMEOUT" || e?.code === "UND_ERR_BODY_TIMEOUT") {
    return `no answer within ${timeoutMs} ms`;
  }
  if (e?.cause instanceof ForbiddenAddressError) return e.cause.message;
  if (e?.code === "EFORBIDDENADDRESS") return String(e.message);
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(error);
  return code ? `${code}: ${message}` : message;
}
