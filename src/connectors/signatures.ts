import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Constant-time string comparison; the length check first because timingSafeEqual throws on unequal lengths. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

export function hmacSha256Hex(secret: string, ...parts: Array<string | Buffer>): string {
  const mac = createHmac("sha256", secret);
  for (const part of parts) mac.update(part);
  return mac.digest("hex");
}

/**
 * Checks a `sha256=<hex>` header (GitHub X-Hub-Signature-256, Jira/WebSub X-Hub-Signature) over
 * the raw body. Hex case is normalised before comparing; the comparison itself is constant-time.
 */
export function verifySha256Header(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
): { ok: true } | { ok: false; reason: string } {
  if (!secret) return { ok: false, reason: "no webhook secret configured" };
  if (!header) return { ok: false, reason: "missing signature header" };
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return { ok: false, reason: "malformed signature header" };
  const expected = hmacSha256Hex(secret, rawBody);
  return safeEqual(match[1].toLowerCase(), expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

/** A dedupe key of last resort: identical retried bodies give identical keys. */
export function bodyDigest(rawBody: Buffer): string {
  return createHash("sha256").update(rawBody).digest("hex");
}
