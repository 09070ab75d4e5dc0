import * as z from "zod";
import type { InboundRequest, VerificationKeys, VerifyResult } from "../types.ts";

/** What every scheme is given: the request as received (raw bytes), the secret in force, the clock. */
export interface SchemeInput {
  req: InboundRequest;
  /** The deployment's webhook secret, else CONNECTOR_<NAME>_WEBHOOK_SECRET; "" when neither is set. */
  secret: string;
  now: Date;
  /** For asymmetric schemes (JWT): the JWKS the caller fetched from the declared jwksUrl. */
  keys?: VerificationKeys;
}

/** HTTP header names as Node gives them to us: lower-case. Declarations are checked against this. */
export const headerName = z
  .string()
  .regex(/^[a-z0-9-]+$/, "must be a lower-case HTTP header name (e.g. x-hub-signature-256)");

/**
 * A signed-content template: `{body}` is the raw body bytes, `{timestamp}` the timestamp header's
 * value, `{url}` the URL the provider called. E.g. Slack `v0:{timestamp}:{body}`, Stripe
 * `{timestamp}.{body}`, Square `{url}{body}`.
 */
export const signedContentTemplate = z
  .string()
  .refine((t) => t.split("{body}").length === 2, "must contain {body} exactly once")
  .refine((t) => !/\{(?!body\}|timestamp\}|url\})[^}]*\}/.test(t), "only {body}, {timestamp} and {url} may be used");

/** A percent-escape written as the provider writes it in a URL (`%3A`): upper-case hex. */
export const percentEscape = z.string().regex(/^%[0-9A-F]{2}$/, "must be a percent-escape like %3A");

/**
 * The exact bytes a template stands for; the body is never decoded and re-encoded. `urlDecode`:
 * percent-escapes written back as their characters in `{url}` (HubSpot signs the URI with some of
 * them decoded), case-insensitively.
 */
export function signedContent(template: string, req: InboundRequest, timestamp: string | undefined, urlDecode: readonly string[] = []): Buffer {
  const [before, after] = template.split("{body}");
  let url = req.url ?? "";
  if (urlDecode.length > 0) {
    const decode = new Set(urlDecode.map((e) => e.toUpperCase()));
    url = url.replace(/%[0-9A-Fa-f]{2}/g, (escape) => (decode.has(escape.toUpperCase()) ? String.fromCharCode(parseInt(escape.slice(1), 16)) : escape));
  }
  const fill = (part: string) => Buffer.from(part.replaceAll("{timestamp}", timestamp ?? "").replaceAll("{url}", url), "utf8");
  return Buffer.concat([fill(before), req.rawBody, fill(after)]);
}

/** Unix-seconds timestamps (or milliseconds, HubSpot's): refuses before computing anything when outside the window. */
export function checkTimestamp(value: string | undefined, now: Date, toleranceSeconds: number, unit: "seconds" | "milliseconds" = "seconds"): VerifyResult {
  if (!value) return { ok: false, reason: "missing timestamp" };
  const digits = value.trim();
  if (!(unit === "seconds" ? /^\d{1,12}$/ : /^\d{1,15}$/).test(digits)) return { ok: false, reason: "malformed timestamp" };
  const late =
    unit === "seconds"
      ? Math.abs(Math.floor(now.getTime() / 1000) - Number(digits)) > toleranceSeconds
      : Math.abs(now.getTime() - Number(digits)) > toleranceSeconds * 1000;
  if (late) return { ok: false, reason: `timestamp outside the ${toleranceSeconds}-second window` };
  return { ok: true };
}

/** RFC 3339 date-time with an explicit offset, e.g. 2021-03-25T05:09:27Z or 2016-07-11T10:10:33-07:00. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The same window for RFC 3339 timestamps. */
export function checkRfc3339Timestamp(value: string | undefined, now: Date, toleranceSeconds: number): VerifyResult {
  if (!value) return { ok: false, reason: "missing timestamp" };
  const time = RFC3339.test(value.trim()) ? Date.parse(value.trim()) : Number.NaN;
  if (Number.isNaN(time)) return { ok: false, reason: "malformed timestamp" };
  if (Math.abs(now.getTime() - time) > toleranceSeconds * 1000) return { ok: false, reason: `timestamp outside the ${toleranceSeconds}-second window` };
  return { ok: true };
}

export const noSecret: VerifyResult = { ok: false, reason: "no webhook secret configured" };
