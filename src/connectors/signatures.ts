import { createHash, timingSafeEqual } from "node:crypto";

/** Constant-time string comparison; the length check first because timingSafeEqual throws on unequal lengths. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** A dedupe key of last resort: identical retried bodies give identical keys. */
export function bodyDigest(rawBody: Buffer): string {
  return createHash("sha256").update(rawBody).digest("hex");
}
