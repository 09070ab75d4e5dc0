import { createHmac } from "node:crypto";

/**
 * Standard Webhooks' `webhook-signature` (https://www.standardwebhooks.com): one `v1,<base64>` per
 * active secret, space-separated — during a rotation's 24 h overlap receivers holding either secret
 * can verify. (`webhook-id`, the event id, and `webhook-timestamp` are written beside it by
 * ./forwardedRequest.ts.)
 *
 * The signature is the specification's: HMAC-SHA256 keyed with the secret's base64 after `whsec_`,
 * over `{id}.{timestamp}.{body}`. It is computed with node:crypto rather than the `standardwebhooks`
 * package's `sign`, which hashes in JavaScript (fast-sha256) and decodes the secret on every call:
 * 3 % of the service's CPU at the forwarding benchmark's maximum rate. The tests verify what this
 * writes with that package's `verify`.
 */
export function webhookSignature(secrets: readonly string[], eventId: string, timestamp: string, body: string): string {
  if (secrets.length === 0) throw new Error("the deployment has no signing secret");
  const signed = `${eventId}.${timestamp}.${body}`;
  return secrets.map((secret) => `v1,${createHmac("sha256", secretKey(secret)).update(signed).digest("base64")}`).join(" ");
}

/** An attempt's `webhook-timestamp`: the unix seconds of `at`. */
export const webhookTimestamp = (at: Date): string => String(Math.floor(at.getTime() / 1000));

/** The key a `whsec_…` secret stands for: the bytes its base64 encodes. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}
