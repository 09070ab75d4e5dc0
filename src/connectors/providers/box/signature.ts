/**
 * Box V2 webhooks: `BOX-SIGNATURE-PRIMARY` and `BOX-SIGNATURE-SECONDARY` are base64 HMAC-SHA256
 * digests, under the app's primary and secondary keys, of the raw body bytes followed by the
 * `BOX-DELIVERY-TIMESTAMP` value (RFC 3339); Box rejects deliveries older than ten minutes. The
 * deployment holds one key: a delivery is genuine when either header matches it, so the operator
 * can rotate keys the way Box intends (configure the other key, then regenerate the first).
 */
import * as z from "zod";
import { safeEqual } from "../../signatures.ts";
import type { VerifyResult } from "../../types.ts";
import { noSecret, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";
import { computeHmac } from "../../schemes/hmac.ts";

const paramsSchema = z.object({
  toleranceSeconds: z.number().int().positive().default(600),
});
type BoxParams = z.infer<typeof paramsSchema>;

/** RFC 3339 date-time with an explicit offset, e.g. 2016-07-11T10:10:33-07:00. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function verifyBox(params: BoxParams, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const primary = req.headers["box-signature-primary"]?.trim();
  const secondary = req.headers["box-signature-secondary"]?.trim();
  if (!primary && !secondary) return { ok: false, reason: "missing signature header" };
  const timestamp = req.headers["box-delivery-timestamp"]?.trim();
  if (!timestamp) return { ok: false, reason: "missing timestamp" };
  if (!RFC3339.test(timestamp)) return { ok: false, reason: "malformed timestamp" };
  // Box documents only "older than ten minutes"; a delivery from the future is as suspect.
  if (Math.abs(now.getTime() - Date.parse(timestamp)) > params.toleranceSeconds * 1000) {
    return { ok: false, reason: `timestamp outside the ${params.toleranceSeconds}-second window` };
  }
  const expected = computeHmac(
    { algorithm: "sha256", encoding: "base64", secretEncoding: "utf8" },
    secret,
    Buffer.concat([req.rawBody, Buffer.from(timestamp, "utf8")]),
  );
  // Both compared, no early exit.
  const matches = [primary, secondary].map((given) => (given ? safeEqual(given, expected) : false));
  return matches.includes(true) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

export const boxSignature = ownScheme({ type: "box", params: paramsSchema, verify: verifyBox, signsTimestamp: true });
