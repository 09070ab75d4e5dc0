import { parseJsonObject } from "../../json.ts";
import type { Handshake } from "../../schemes/handshakes.ts";
import { computeHmac } from "../../schemes/hmac.ts";

/** Zoom's plainTokens are 22 base64url characters; anything else is not one of Zoom's. */
const ZOOM_PLAIN_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Zoom: event `endpoint.url_validation` → `{plainToken, encryptedToken: hex HMAC-SHA256(secret, plainToken)}`.
 * Signed like every Zoom event (x-zm-signature over `v0:{x-zm-request-timestamp}:{body}`), so
 * answered only after that check: https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint,
 * and Zoom's own sample answers it inside the verified branch (github.com/zoom/webhook-sample, index.js).
 */
export const zoomUrlValidation: Handshake = {
  type: "zoom_url_validation",
  stage: "after_verify",
  answer(req, secret) {
    const body = (req.method ?? "POST") === "POST" ? parseJsonObject(req.rawBody) : null;
    if (body?.event !== "endpoint.url_validation") return undefined;
    const plainToken = (body.payload as Record<string, unknown> | undefined)?.plainToken;
    if (typeof plainToken !== "string" || !ZOOM_PLAIN_TOKEN.test(plainToken)) {
      return { refused: "payload.plainToken must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -." };
    }
    if (!secret) return undefined;
    const encryptedToken = computeHmac({ algorithm: "sha256", encoding: "hex", secretEncoding: "utf8" }, secret, Buffer.from(plainToken, "utf8"));
    return { status: 200, contentType: "application/json", body: JSON.stringify({ plainToken, encryptedToken }) };
  },
};
