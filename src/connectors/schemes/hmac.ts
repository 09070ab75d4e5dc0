/**
 * HMAC over the raw body, or over a template around it: GitHub `X-Hub-Signature-256: sha256=<hex>`,
 * Jira/WebSub `X-Hub-Signature`, Slack/Zoom `v0=<hex>` over `v0:{timestamp}:{body}` with a
 * timestamp header, Zendesk base64 over `{timestamp}{body}` with an RFC 3339 timestamp,
 * Shopify base64 digests, Square `{url}{body}`, HubSpot v3 base64 over `POST{url}{body}{timestamp}`
 * with a millisecond timestamp and some escapes of the URL decoded.
 */
import { createHmac } from "node:crypto";
import * as z from "zod";
import { safeEqual } from "../signatures.ts";
import type { VerifyResult } from "../types.ts";
import { checkRfc3339Timestamp, checkTimestamp, headerName, noSecret, percentEscape, type SchemeInput, signedContent, signedContentTemplate } from "./common.ts";

export const hmacScheme = z
  .object({
    type: z.literal("hmac"),
    /** The header carrying the signature. */
    header: headerName,
    algorithm: z.enum(["sha256", "sha1", "sha512"]).default("sha256"),
    encoding: z.enum(["hex", "base64"]).default("hex"),
    /** Text before the digest in the header, e.g. `sha256=` or `v0=`. */
    prefix: z.string().default(""),
    signedContent: signedContentTemplate.default("{body}"),
    /** Required when the template uses {timestamp}: the header holding the time. */
    timestampHeader: headerName.optional(),
    /** How that header writes the time: unix seconds, unix milliseconds (HubSpot), or RFC 3339 (Zendesk `2021-03-25T05:09:27Z`). */
    timestampFormat: z.enum(["unix_seconds", "unix_milliseconds", "rfc3339"]).default("unix_seconds"),
    toleranceSeconds: z.number().int().positive().default(300),
    /** Percent-escapes written back as their characters in `{url}` before signing (HubSpot v3: `%3A`, `%2F`, …). */
    urlDecode: z.array(percentEscape).default([]),
    /** How the secret is turned into key bytes (some providers hand out base64 secrets). */
    secretEncoding: z.enum(["utf8", "base64"]).default("utf8"),
  })
  .refine((p) => !p.signedContent.includes("{timestamp}") || p.timestampHeader, {
    message: "a signedContent with {timestamp} needs timestampHeader",
    path: ["timestampHeader"],
  });
export type HmacParams = z.infer<typeof hmacScheme>;

export function computeHmac(params: Pick<HmacParams, "algorithm" | "encoding" | "secretEncoding">, secret: string, content: Buffer): string {
  const key = params.secretEncoding === "base64" ? Buffer.from(secret, "base64") : Buffer.from(secret, "utf8");
  return createHmac(params.algorithm, key).update(content).digest(params.encoding);
}

export function verifyHmac(params: HmacParams, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const header = req.headers[params.header]?.trim();
  if (!header) return { ok: false, reason: "missing signature header" };
  let timestamp: string | undefined;
  if (params.timestampHeader) {
    timestamp = req.headers[params.timestampHeader]?.trim();
    const fresh =
      params.timestampFormat === "rfc3339"
        ? checkRfc3339Timestamp(timestamp, now, params.toleranceSeconds)
        : checkTimestamp(timestamp, now, params.toleranceSeconds, params.timestampFormat === "unix_milliseconds" ? "milliseconds" : "seconds");
    if (!fresh.ok) return fresh;
  }
  if (!header.startsWith(params.prefix)) return { ok: false, reason: "malformed signature header" };
  const given = header.slice(params.prefix.length);
  const expected = computeHmac(params, secret, signedContent(params.signedContent, req, timestamp, params.urlDecode));
  // Hex case is not significant; base64 is compared exactly.
  const normalized = params.encoding === "hex" ? given.toLowerCase() : given;
  return safeEqual(normalized, expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
