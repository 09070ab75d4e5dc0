/**
 * A shared secret carried inside the JSON body instead of a header: Figma webhooks V2 put the
 * webhook's `passcode` in every delivery. There is nothing to compute; the value is compared in
 * constant time. The body must be parsed to find it, so only a well-formed JSON object with a
 * string at the path can pass.
 */
import * as z from "zod";
import { parseJsonObject, valueAt } from "../../json.ts";
import { safeEqual } from "../../signatures.ts";
import type { VerifyResult } from "../../types.ts";
import { noSecret, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";

const paramsSchema = z.object({
  /** Dot path of the secret in the JSON body. */
  path: z.string().regex(/^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$/, "must be a dot path like passcode"),
});
type BodyTokenParams = z.infer<typeof paramsSchema>;

function verifyBodyToken(params: BodyTokenParams, { req, secret }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const value = valueAt(parseJsonObject(req.rawBody), params.path);
  if (typeof value !== "string" || !value) return { ok: false, reason: "missing token" };
  return safeEqual(value, secret) ? { ok: true } : { ok: false, reason: "token mismatch" };
}

export const figmaPasscode = ownScheme({ type: "body_token", params: paramsSchema, verify: verifyBodyToken, signsTimestamp: false, secretPath: (p) => p.path });
