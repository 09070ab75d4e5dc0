/**
 * A bearer JWT signed by the provider with an asymmetric key (Google Cloud Pub/Sub push,
 * https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions): RS256 against the JWKS at
 * `jwksUrl` (overridable with CONNECTOR_<NAME>_JWKS_URL; fetched and cached by the caller), `iss`
 * one of `issuers`, `exp`/`iat` within 5 minutes of now.
 *
 * The webhook **secret is the expected audience** (create the push subscription with
 * `--push-auth-token-audience=<secret>`): only the provider can sign a token, and only our
 * subscription carries that audience, so it plays the part a shared HMAC secret plays elsewhere.
 * `<audience>|<service-account-email>` also pins the signer (`email`, which must be verified).
 */
import * as z from "zod";
import { verifyRs256Jwt } from "../../jwt.ts";
import { safeEqual } from "../../signatures.ts";
import type { VerifyResult } from "../../types.ts";
import { headerName, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";

const paramsSchema = z.object({
  jwksUrl: z.url({ protocol: /^https$/, error: "must be an https:// URL" }),
  issuers: z.array(z.string().min(1)).min(1),
  header: headerName.default("authorization"),
});
type JwtParams = z.infer<typeof paramsSchema>;

function verifyJwt(params: JwtParams, { req, secret, now, keys }: SchemeInput): VerifyResult {
  if (!secret) return { ok: false, reason: "no push audience configured" };
  const [audience, serviceAccount] = secret.split("|", 2);
  const authorization = req.headers[params.header];
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization.trim()) : null;
  if (!match) return { ok: false, reason: "missing bearer token" };

  const result = verifyRs256Jwt(match[1], keys?.jwks, now);
  if (!result.ok) return result;
  const { claims } = result;
  if (typeof claims.iss !== "string" || !params.issuers.includes(claims.iss)) return { ok: false, reason: "token not issued by the provider" };
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.some((aud) => typeof aud === "string" && safeEqual(aud, audience))) return { ok: false, reason: "token audience mismatch" };
  if (serviceAccount && (claims.email_verified !== true || claims.email !== serviceAccount)) {
    return { ok: false, reason: "token not from the expected service account" };
  }
  return { ok: true };
}

export const pubsubPushToken = ownScheme({ type: "jwt", params: paramsSchema, verify: verifyJwt, signsTimestamp: true, jwksUrl: (p) => p.jwksUrl });
