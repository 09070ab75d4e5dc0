/**
 * A bearer JWT the provider signs with a shared secret (HS256): Jira's dynamic webhooks of OAuth
 * 2.0 apps carry `Authorization: Bearer <JWT>` signed with the app's client secret
 * (developer.atlassian.com/cloud/jira/platform/webhooks/#webhooks-authentication-for-oauth-2-0-apps).
 * The algorithm is ours (HS256 only, never read from the token: no `none`, no key confusion); an
 * `exp` claim, when present, must not be more than 5 minutes past.
 */
import { createHmac } from "node:crypto";
import { z } from "zod";
import { asRecord } from "../json.ts";
import { safeEqual } from "../signatures.ts";
import type { VerifyResult } from "../types.ts";
import { headerName, noSecret, type SchemeInput } from "./common.ts";

export const jwtHs256Scheme = z.object({
  type: z.literal("jwt_hs256"),
  header: headerName.default("authorization"),
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
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers[params.header]?.trim() ?? "");
  if (!match) return { ok: false, reason: "missing bearer token" };
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
