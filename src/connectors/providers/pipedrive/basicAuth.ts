/**
 * HTTP Basic credentials the provider was given when the webhook was made (RFC 7617): Pipedrive
 * sends `Authorization: Basic base64(http_auth_user:http_auth_password)` with every delivery. The
 * user is declared (it names nobody); the password is the secret. Both halves are compared in
 * constant time, with no early exit; there is nothing to compute over the body.
 */
import * as z from "zod";
import { safeEqual } from "../../signatures.ts";
import type { VerifyResult } from "../../types.ts";
import { noSecret, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";

const paramsSchema = z.object({
  /** The user name sent with the secret as the password (RFC 7617: no colon in it). */
  user: z.string().min(1).regex(/^[^:]+$/, "must not contain a colon"),
});
type BasicParams = z.infer<typeof paramsSchema>;

function verifyBasic(params: BasicParams, { req, secret }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const header = req.headers.authorization?.trim();
  if (!header) return { ok: false, reason: "missing authorization header" };
  // The scheme name is case-insensitive (RFC 7617 §2, RFC 7235 §2.1).
  const match = /^basic\s+([A-Za-z0-9+/]+={0,2})$/i.exec(header);
  if (!match) return { ok: false, reason: "malformed authorization header" };
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return { ok: false, reason: "malformed authorization header" };
  const userMatches = safeEqual(decoded.slice(0, colon), params.user);
  const passwordMatches = safeEqual(decoded.slice(colon + 1), secret);
  return userMatches && passwordMatches ? { ok: true } : { ok: false, reason: "credentials mismatch" };
}

export const pipedriveBasicAuth = ownScheme({ type: "basic", params: paramsSchema, verify: verifyBasic, signsTimestamp: false });
