/**
 * An HMAC over values carried inside the JSON body, its digest a member of the same body: Lever
 * puts `token`, `triggeredAt` and `signature` in every delivery, the signature being the hex
 * HMAC-SHA256 of `token + triggeredAt` keyed with the webhook's signature token. The signature does
 * not cover the rest of the body, so the values are read before anything else and nothing is
 * trusted until they match; without a signed timestamp window, the inbound route's replay window
 * (the body's digest) applies.
 */
import { createHmac } from "node:crypto";
import * as z from "zod";
import { parseJsonObject, valueAt } from "../../json.ts";
import { safeEqual } from "../../signatures.ts";
import type { VerifyResult } from "../../types.ts";
import { noSecret, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";

const dotPath = z.string().regex(/^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$/, "must be a dot path like token");

const paramsSchema = z.object({
  /** Where the hex digest is in the body. */
  signaturePath: dotPath,
  /** The members whose values, concatenated as text in this order, are signed. */
  signedPaths: z.array(dotPath).min(1),
  algorithm: z.enum(["sha256", "sha1"]).default("sha256"),
});
type HmacBodyFieldsParams = z.infer<typeof paramsSchema>;

function verifyHmacBodyFields(params: HmacBodyFieldsParams, { req, secret }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const body = parseJsonObject(req.rawBody);
  const signature = valueAt(body, params.signaturePath);
  if (typeof signature !== "string" || !signature) return { ok: false, reason: "missing signature" };
  const parts = params.signedPaths.map((path) => valueAt(body, path));
  if (parts.some((part) => (typeof part !== "string" && typeof part !== "number") || part === "")) return { ok: false, reason: "missing signed values" };
  const expected = createHmac(params.algorithm, secret).update(parts.map(String).join("")).digest("hex");
  return safeEqual(signature.toLowerCase(), expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

// Lever signs a token and its time, not the body, and documents no window for the time.
export const leverSignature = ownScheme({ type: "hmac_body_fields", params: paramsSchema, verify: verifyHmacBodyFields, signsTimestamp: false });
