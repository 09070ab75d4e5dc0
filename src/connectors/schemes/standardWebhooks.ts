/**
 * Standard Webhooks (https://www.standardwebhooks.com, as sent by Svix and the providers built on
 * it): `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "{id}.{timestamp}.{body}">` (space-separated list). The secret is `whsec_<base64 key>`; Svix
 * uses the same scheme under `svix-*` header names.
 */
import { createHmac } from "node:crypto";
import { z } from "zod";
import { safeEqual } from "../signatures.ts";
import type { VerifyResult } from "../types.ts";
import { checkTimestamp, noSecret, type SchemeInput } from "./common.ts";

export const standardWebhooksScheme = z.object({
  type: z.literal("standard_webhooks"),
  headerPrefix: z.enum(["webhook", "svix"]).default("webhook"),
  toleranceSeconds: z.number().int().positive().default(300),
});
export type StandardWebhooksParams = z.infer<typeof standardWebhooksScheme>;

export function verifyStandardWebhooks(params: StandardWebhooksParams, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const id = req.headers[`${params.headerPrefix}-id`];
  const timestamp = req.headers[`${params.headerPrefix}-timestamp`];
  const signature = req.headers[`${params.headerPrefix}-signature`];
  if (!id || !timestamp || !signature) return { ok: false, reason: "missing signature headers" };
  const fresh = checkTimestamp(timestamp, now, params.toleranceSeconds);
  if (!fresh.ok) return fresh;
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp.trim()}.`).update(req.rawBody).digest("base64");
  const matches = signature
    .split(" ")
    .map((entry) => entry.split(",", 2))
    .filter(([version]) => version === "v1")
    .map(([, value]) => safeEqual(value ?? "", expected));
  return matches.includes(true) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}
