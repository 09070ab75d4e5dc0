import { createPublicKey, verify as verifySignature, type JsonWebKey as NodeJwk } from "node:crypto";
import type { JsonWebKeySet } from "./types.ts";
import { asRecord } from "./json.ts";

/**
 * A minimal RS256 JWT verifier against a JWKS, synchronous and offline so `inbound.verify` stays a
 * pure function of (request, secret, now, keys). Only RS256 is accepted: the algorithm is fixed by
 * us, never taken from the token, which rules out `alg: none` and RS/HS key-confusion tricks.
 * Claim checks specific to a provider (iss, aud, email) are the caller's.
 */

export type JwtVerifyResult =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; reason: string; refreshKeys?: boolean };

const B64URL = /^[A-Za-z0-9_-]*$/;

function decodeJsonSegment(segment: string): Record<string, unknown> | undefined {
  if (!B64URL.test(segment)) return undefined;
  try {
    return asRecord(JSON.parse(Buffer.from(segment, "base64url").toString("utf8")));
  } catch {
    return undefined;
  }
}

export function verifyRs256Jwt(
  token: string,
  jwks: JsonWebKeySet | undefined,
  now: Date,
  clockToleranceSeconds = 300,
): JwtVerifyResult {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed token" };
  const [headerSegment, payloadSegment, signatureSegment] = parts;
  const header = decodeJsonSegment(headerSegment);
  if (!header) return { ok: false, reason: "malformed token header" };
  if (header.alg !== "RS256") return { ok: false, reason: "unsupported token algorithm" };
  if (!jwks || !Array.isArray(jwks.keys) || jwks.keys.length === 0) {
    return { ok: false, reason: "no signing keys available", refreshKeys: true };
  }
  const kid = typeof header.kid === "string" ? header.kid : undefined;
  const candidates = jwks.keys.filter(
    (k) => k.kty === "RSA" && (k.use === undefined || k.use === "sig") && (kid === undefined || k.kid === kid),
  );
  if (candidates.length === 0) return { ok: false, reason: "unknown signing key", refreshKeys: true };
  if (!B64URL.test(signatureSegment) || signatureSegment.length === 0) {
    return { ok: false, reason: "malformed token signature" };
  }
  const signingInput = Buffer.from(`${headerSegment}.${payloadSegment}`, "ascii");
  const signature = Buffer.from(signatureSegment, "base64url");
  const valid = candidates.some((jwk) => {
    try {
      const key = createPublicKey({ key: jwk as NodeJwk, format: "jwk" });
      return verifySignature("RSA-SHA256", signingInput, key, signature);
    } catch {
      return false;
    }
  });
  if (!valid) return { ok: false, reason: "token signature mismatch" };

  const claims = decodeJsonSegment(payloadSegment);
  if (!claims) return { ok: false, reason: "malformed token claims" };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (typeof claims.exp !== "number") return { ok: false, reason: "token has no expiry" };
  if (claims.exp + clockToleranceSeconds < nowSeconds) return { ok: false, reason: "token expired" };
  if (typeof claims.iat === "number" && claims.iat - clockToleranceSeconds > nowSeconds) {
    return { ok: false, reason: "token issued in the future" };
  }
  if (typeof claims.nbf === "number" && claims.nbf - clockToleranceSeconds > nowSeconds) {
    return { ok: false, reason: "token not yet valid" };
  }
  return { ok: true, claims };
}
