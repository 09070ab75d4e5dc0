/**
 * The `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` header of Stripe (`Stripe-Signature`, signed content
 * `{timestamp}.{body}`) and of the providers that copied it (Calendly-Webhook-Signature). Several
 * v1 values may be present while a secret is being rolled: any one matching is enough.
 */
import * as z from "zod";
import { safeEqual } from "../signatures.ts";
import type { VerifyResult } from "../types.ts";
import { checkTimestamp, headerName, noSecret, type SchemeInput, signedContent, signedContentTemplate } from "./common.ts";
import { computeHmac } from "./hmac.ts";

export const stripeScheme = z.object({
  type: z.literal("stripe"),
  header: headerName,
  timestampKey: z.string().default("t"),
  signatureKey: z.string().default("v1"),
  signedContent: signedContentTemplate.default("{timestamp}.{body}"),
  algorithm: z.enum(["sha256", "sha1", "sha512"]).default("sha256"),
  encoding: z.enum(["hex", "base64"]).default("hex"),
  toleranceSeconds: z.number().int().positive().default(300),
});
export type StripeParams = z.infer<typeof stripeScheme>;

export function verifyStripe(params: StripeParams, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const header = req.headers[params.header];
  if (!header) return { ok: false, reason: "missing signature header" };
  const pairs = header.split(",").map((part) => {
    const at = part.indexOf("=");
    return at < 0 ? ["", ""] : [part.slice(0, at).trim(), part.slice(at + 1).trim()];
  });
  const timestamp = pairs.find(([k]) => k === params.timestampKey)?.[1];
  const signatures = pairs.filter(([k]) => k === params.signatureKey).map(([, v]) => v);
  if (!timestamp || signatures.length === 0) return { ok: false, reason: "malformed signature header" };
  const fresh = checkTimestamp(timestamp, now, params.toleranceSeconds);
  if (!fresh.ok) return fresh;
  const expected = computeHmac({ ...params, secretEncoding: "utf8" }, secret, signedContent(params.signedContent, req, timestamp));
  // Every candidate is compared (no early exit), so timing does not say which one matched.
  const matches = signatures.map((s) => safeEqual(params.encoding === "hex" ? s.toLowerCase() : s, expected));
  return matches.includes(true) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
