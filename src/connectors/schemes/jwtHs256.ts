/**
 * A bearer JWT the provider signs with a shared secret (HS256): Jira's dynamic webhooks of OAuth
 * 2.0 apps carry `Authorization: Bearer <JWT>` signed with the app's client secret
 * (developer.atlassian.com/cloud/jira/platform/webhooks/#webhooks-authentication-for-oauth-2-0-apps);
 * monday.com sends the bare token, `Authorization: <JWT>` with no "Bearer " (`bearer: false`), signed
 * with the app's Signing Secret (developer.monday.com/apps/docs/integration-authorization).
 * The algorithm is ours (HS256 only, never read from the token: no `none`, no key confusion); an
 * `exp` claim, when present, must not be more than 5 minutes past.
 */
import { createHmac } from "node:crypto";
import * as z from "zod";
import { asRecord } from "../json.ts";
import { safeEqual } from "../signatures.ts";
import type { VerifyResult } from "../types.ts";
import { headerName, noSecret, type SchemeInput } from "./common.ts";

export const jwtHs256Scheme = z.object({
  type: z.literal("jwt_hs256"),
  header: headerName.default("authorization"),
  /** The header is `Bearer <JWT>` (true), or the token alone (false: monday.com). */
  bearer: z.boolean().default(true),
});
export type JwtHs256Params = z.infer<typeof jwtHs256Scheme>;

const TOLERANCE_SECONDS = 300;

function segment(value: string): Record<string, unknown> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  try {
    return asRecord(JSON.parse(Buffer.from(value, "base64url").toString("utf8")));
  } catch {
    return undefined;
  }
}

export function verifyJwtHs256(params: JwtHs256Params, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const value = req.headers[params.header]?.trim() ?? "";
  const match = params.bearer ? /^Bearer\s+(\S+)$/i.exec(value) : /^(\S+)$/.exec(value);
  if (!match) return { ok: false, reason: params.bearer ? "missing bearer token" : "missing token" };
  const parts = match[1].split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed token" };
  const header = segment(parts[0]);
  const claims = segment(parts[1]);
  if (!header || !claims) return { ok: false, reason: "malformed token" };
  if (header.alg !== "HS256") return { ok: false, reason: "unsupported token algorithm" };
  const expected = createHmac("sha256", secret).update(`${parts[0]}.${parts[1]}`).digest("base64url");
  if (!safeEqual(expected, parts[2])) return { ok: false, reason: "token signature mismatch" };
  if (typeof claims.exp === "number" && claims.exp + TOLERANCE_SECONDS < now.getTime() / 1000) return { ok: false, reason: "token expired" };
  return { ok: true };
}
