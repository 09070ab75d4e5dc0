import { Webhook } from "standardwebhooks";

/**
 * Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-id` is the event id (the
 * same on every retry and replay, so receivers deduplicate on it), `webhook-timestamp` the unix
 * seconds of this attempt, `webhook-signature` one `v1,<base64>` per active secret, space-separated
 * — during a rotation's 24 h overlap receivers holding either secret can verify.
 */
export function signatureHeaders(secrets: readonly string[], eventId: string, body: string, at: Date): Record<string, string> {
  if (secrets.length === 0) throw new Error("the deployment has no signing secret");
  const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp.getTime() / 1000),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body)).join(" "),
  };
}
