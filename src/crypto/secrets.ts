import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/**
 * Secrets at rest (OAuth tokens, client secrets, the forwarding header value, signing secrets) are
 * sealed with AES-256-GCM. The stored form is `v1.<iv>.<tag>.<ciphertext>` in base64url, so a
 * future key rotation can tell versions apart.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("the encryption key must be 32 bytes");
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/**
 * A row id: the prefix and 96 random bits in hex (24 characters). The bits are a version-4 UUID's
 * random ones, because node:crypto hands UUIDs out of a cached pool of random bytes while
 * `randomBytes` asks OpenSSL on every call: three ids per forwarded event cost 2–3 % of the service's
 * CPU that way.
 */
export function randomId(prefix: string): string {
  const uuid = randomUUID(); // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: the 4 and y are not random
  return `${prefix}_${uuid.slice(0, 8)}${uuid.slice(9, 13)}${uuid.slice(24)}`;
}

/**
 * The id of a row written on the event path (an event, a delivery): the prefix, the
 * time in milliseconds (12 hex digits) and 48 random bits, 24 characters as randomId's. Ids made
 * in time order go in at the right edge of their indexes (the primary keys, a delivery's event id,
 * an attempt's delivery id), which PostgreSQL appends to without descending the tree, instead of
 * at a random page each: fewer pages dirtied, so fewer full-page images in the WAL and fewer pages
 * the accepting connections write out themselves (docs/benchmarks.md). Like Svix's KSUID message
 * ids, they say when they were made; nothing reads that back from them.
 */
export function timeOrderedId(prefix: string, nowMs = Date.now()): string {
  const uuid = randomUUID();
  return `${prefix}_${nowMs.toString(16).padStart(12, "0")}${uuid.slice(0, 8)}${uuid.slice(9, 13)}`;
}

/** Constant-time string comparison that does not leak where the strings differ (nor, beyond a hash, their length). */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash("sha256").update(a).digest();
  const right = createHash("sha256").update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
