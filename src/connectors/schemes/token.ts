/**
 * A shared secret sent as is in a header: GitLab `X-Gitlab-Token`, or `Authorization: Bearer …`
 * with a prefix. Compared in constant time; there is nothing to compute over the body.
 */
import * as z from "zod";
import { safeEqual } from "../signatures.ts";
import type { VerifyResult } from "../types.ts";
import { headerName, noSecret, type SchemeInput } from "./common.ts";

export const tokenScheme = z.object({
  type: z.literal("token"),
  header: headerName,
  /** Text before the secret, e.g. `Bearer `. */
  prefix: z.string().default(""),
});
export type TokenParams = z.infer<typeof tokenScheme>;

export function verifyToken(params: TokenParams, { req, secret }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const header = req.headers[params.header];
  if (!header) return { ok: false, reason: "missing token header" };
  if (!header.startsWith(params.prefix)) return { ok: false, reason: "malformed token header" };
  return safeEqual(header.slice(params.prefix.length), secret) ? { ok: true } : { ok: false, reason: "token mismatch" };
}
