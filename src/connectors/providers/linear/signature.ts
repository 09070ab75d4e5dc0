/**
 * HMAC over the raw body whose freshness is a timestamp INSIDE the signed body rather than in a
 * header: Linear (`Linear-Signature: <hex HMAC-SHA256>`, `webhookTimestamp` in milliseconds, one
 * minute). The signature is checked first, over the raw bytes; only a body proven to be the
 * provider's is parsed to read its timestamp.
 */
import * as z from "zod";
import { parseJsonObject, valueAt } from "../../json.ts";
import { safeEqual } from "../../signatures.ts";
import type { VerifyResult } from "../../types.ts";
import { headerName, noSecret, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";
import { computeHmac } from "../../schemes/hmac.ts";

const paramsSchema = z.object({
  header: headerName,
  algorithm: z.enum(["sha256", "sha1", "sha512"]).default("sha256"),
  encoding: z.enum(["hex", "base64"]).default("hex"),
  prefix: z.string().default(""),
  /** Dot path of the timestamp in the JSON body. */
  timestampPath: z.string().regex(/^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$/, "must be a dot path like webhookTimestamp"),
  timestampUnit: z.enum(["s", "ms"]).default("ms"),
  toleranceSeconds: z.number().int().positive().default(60),
});
type HmacBodyTimestampParams = z.infer<typeof paramsSchema>;

function verifyHmacBodyTimestamp(params: HmacBodyTimestampParams, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const header = req.headers[params.header]?.trim();
  if (!header) return { ok: false, reason: "missing signature header" };
  if (!header.startsWith(params.prefix)) return { ok: false, reason: "malformed signature header" };
  const given = header.slice(params.prefix.length);
  const expected = computeHmac({ ...params, secretEncoding: "utf8" }, secret, req.rawBody);
  if (!safeEqual(params.encoding === "hex" ? given.toLowerCase() : given, expected)) return { ok: false, reason: "signature mismatch" };
  const value = valueAt(parseJsonObject(req.rawBody), params.timestampPath);
  const at = typeof value === "number" ? value : typeof value === "string" && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(at)) return { ok: false, reason: "missing timestamp" };
  const skewMs = Math.abs(now.getTime() - (params.timestampUnit === "ms" ? at : at * 1000));
  if (skewMs > params.toleranceSeconds * 1000) return { ok: false, reason: `timestamp outside the ${params.toleranceSeconds}-second window` };
  return { ok: true };
}

export const linearSignature = ownScheme({ type: "hmac_body_timestamp", params: paramsSchema, verify: verifyHmacBodyTimestamp, signsTimestamp: true });
