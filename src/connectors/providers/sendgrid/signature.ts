/**
 * An ECDSA signature made with the provider's private key, checked with the public key it hands
 * out: SendGrid's Signed Event Webhook (`X-Twilio-Email-Event-Webhook-Signature`: base64 of the DER
 * ECDSA P-256 signature over SHA-256 of `{timestamp}{body}`, the time in
 * `X-Twilio-Email-Event-Webhook-Timestamp`). The secret is the public key as the provider gives it:
 * base64 of the DER SubjectPublicKeyInfo, or the same in PEM. Nothing secret is compared here, so
 * there is no timing to guard; the timestamp is checked before any verification.
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import * as z from "zod";
import type { VerifyResult } from "../../types.ts";
import { checkTimestamp, headerName, noSecret, type SchemeInput, signedContent, signedContentTemplate } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";

const paramsSchema = z.object({
  /** The header carrying the base64 DER signature. */
  header: headerName,
  /** The header carrying the unix-seconds time that is signed with the body. */
  timestampHeader: headerName,
  signedContent: signedContentTemplate.default("{timestamp}{body}"),
  toleranceSeconds: z.number().int().positive().default(300),
});
type EcdsaParams = z.infer<typeof paramsSchema>;

/** The public key, from base64 DER (SPKI) or PEM; undefined when it is neither. */
function ecdsaPublicKey(secret: string): KeyObject | undefined {
  try {
    const text = secret.trim();
    if (text.includes("-----BEGIN")) return createPublicKey(text);
    if (!/^[A-Za-z0-9+/=\s]+$/.test(text)) return undefined;
    return createPublicKey({ key: Buffer.from(text, "base64"), format: "der", type: "spki" });
  } catch {
    return undefined;
  }
}

function verifyEcdsa(params: EcdsaParams, { req, secret, now }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const header = req.headers[params.header]?.trim();
  if (!header) return { ok: false, reason: "missing signature header" };
  const timestamp = req.headers[params.timestampHeader]?.trim();
  const fresh = checkTimestamp(timestamp, now, params.toleranceSeconds);
  if (!fresh.ok) return fresh;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(header)) return { ok: false, reason: "malformed signature header" };
  const key = ecdsaPublicKey(secret);
  if (!key || key.asymmetricKeyType !== "ec") return { ok: false, reason: "the public key in force is not an EC public key" };
  let valid = false;
  try {
    valid = verify("sha256", signedContent(params.signedContent, req, timestamp), { key, dsaEncoding: "der" }, Buffer.from(header, "base64"));
  } catch {
    valid = false;
  }
  return valid ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

export const sendgridSignature = ownScheme({ type: "ecdsa", params: paramsSchema, verify: verifyEcdsa, signsTimestamp: true });
