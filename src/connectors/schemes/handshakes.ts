/**
 * URL-verification challenges and handshakes: requests a provider sends to prove the URL is ours
 * (and that we hold the secret) rather than to deliver an event. Each answers with exactly what
 * its provider expects and stores nothing. (A token the operator must read back — Notion's — is no
 * handshake but a declared `webhook.verificationToken`: verificationToken.ts.)
 *
 * `stage` says when it is answered: `before_verify` for handshakes the provider does not sign
 * (they precede any secret), `after_verify` for signed ones. A handshake answered before the
 * signature check is never given the secret (compile.ts passes ""): it must never compute anything
 * keyed by the secret over what the caller sent, or it signs whatever an attacker asks for — an
 * "answer that proves the secret" is only safe once the request itself is proven to be the provider's.
 */
import { z } from "zod";
import { asString, parseJsonObject } from "../json.ts";
import type { InboundRequest } from "../types.ts";
import { computeHmac } from "./hmac.ts";

export interface HandshakeReply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** A request that is the handshake but malformed: a 400 `invalid_parameter` naming what is wrong. */
export interface HandshakeRefusal {
  refused: string;
}

export const handshakeSchema = z.discriminatedUnion("type", [
  /** Slack Events API: `{"type":"url_verification","challenge":"…"}` (signed) → the challenge as text/plain. */
  z.object({ type: z.literal("slack_url_verification") }),
  /** Asana: the first POST carries `X-Hook-Secret`; echo it in the same header with 200. */
  z.object({ type: z.literal("asana_hook_secret") }),
  /** Dropbox: `GET ?challenge=…` → the challenge as text/plain (nosniff). */
  z.object({ type: z.literal("dropbox_challenge") }),
  /**
   * Zoom: event `endpoint.url_validation` → `{plainToken, encryptedToken: hex HMAC-SHA256(secret, plainToken)}`.
   * Signed like every Zoom event (x-zm-signature over `v0:{x-zm-request-timestamp}:{body}`), so
   * answered only after that check: https://developers.zoom.us/docs/api/webhooks/#validate-your-webhook-endpoint,
   * and Zoom's own sample answers it inside the verified branch (github.com/zoom/webhook-sample, index.js).
   */
  z.object({ type: z.literal("zoom_url_validation") }),
  /** Microsoft Graph: `POST ?validationToken=…` → the token (URL-decoded) as text/plain within 10 s. */
  z.object({ type: z.literal("graph_validation_token") }),
  /**
   * monday.com: a webhook's URL is checked with an unsigned POST `{"challenge":"…"}` and the same
   * JSON answered (https://developer.monday.com/api-reference/reference/webhooks#url-verification).
   */
  z.object({ type: z.literal("monday_challenge") }),
  /**
   * Trello: a `HEAD` to the callback URL when a webhook is created, which must answer 200
   * (https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/#creating-a-webhook).
   */
  z.object({ type: z.literal("trello_head") }),
  /**
   * WooCommerce: on creation a webhook POSTs, unsigned, the form body `webhook_id=<id>` and needs a
   * 2xx, else it is not activated (WC_Webhook::deliver_ping). Answered 200 with nothing stored;
   * it carries no event, so answering it proves nothing and forwards nothing.
   */
  z.object({ type: z.literal("woocommerce_ping") }),
]);
export type Handshake = z.infer<typeof handshakeSchema>;

export const HANDSHAKE_STAGE: Record<Handshake["type"], "before_verify" | "after_verify"> = {
  slack_url_verification: "after_verify",
  asana_hook_secret: "before_verify",
  dropbox_challenge: "before_verify",
  zoom_url_validation: "after_verify",
  graph_validation_token: "before_verify",
  monday_challenge: "before_verify",
  trello_head: "before_verify",
  woocommerce_ping: "before_verify",
};

/** monday's challenges are random tokens; anything longer or with other characters is not one of monday's. */
const MONDAY_CHALLENGE = /^[A-Za-z0-9_.~+/=-]{1,512}$/;

/** Dropbox's challenge, echoed: a token's characters, bounded. */
const ECHOED_CHALLENGE = /^[A-Za-z0-9_.~+/=-]{1,512}$/;
/** Graph's validationToken, echoed: printable ASCII with nothing markup is made of, bounded. */
const GRAPH_VALIDATION_TOKEN = /^[\x20-\x7e]{1,1024}$/;
const MARKUP = /[<>&"']/;

/** The whole body of WooCommerce's ping: one form field, the webhook's numeric id. */
const WOOCOMMERCE_PING = /^webhook_id=\d{1,20}$/;

/** Zoom's plainTokens are 22 base64url characters; anything else is not one of Zoom's. */
const ZOOM_PLAIN_TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

const text = (body: string, headers?: Record<string, string>): HandshakeReply => ({ status: 200, contentType: "text/plain; charset=utf-8", body, headers });

/**
 * The reply when `req` is this handshake; undefined when it is an ordinary delivery. `secret` is ""
 * for handshakes answered before the signature check.
 */
export function answerHandshake(handshake: Handshake, req: InboundRequest, secret: string): HandshakeReply | HandshakeRefusal | undefined {
  const method = req.method ?? "POST";
  switch (handshake.type) {
    case "slack_url_verification": {
      const body = method === "POST" ? parseJsonObject(req.rawBody) : null;
      return body?.type === "url_verification" ? text(asString(body.challenge) ?? "") : undefined;
    }
    case "asana_hook_secret": {
      const hookSecret = req.headers["x-hook-secret"];
      return method === "POST" && hookSecret ? { ...text(""), headers: { "x-hook-secret": hookSecret } } : undefined;
    }
    case "dropbox_challenge": {
      const challenge = req.query?.get("challenge");
      if (method !== "GET" || !challenge) return undefined;
      // Echoed back: only what a challenge is made of, never markup or a large body.
      if (!ECHOED_CHALLENGE.test(challenge)) return { refused: "challenge must be 1 to 512 characters of A-Z, a-z, 0-9 and _ - . ~ + / =." };
      return text(challenge, { "x-content-type-options": "nosniff" });
    }
    case "zoom_url_validation": {
      const body = method === "POST" ? parseJsonObject(req.rawBody) : null;
      if (body?.event !== "endpoint.url_validation") return undefined;
      const plainToken = (body.payload as Record<string, unknown> | undefined)?.plainToken;
      if (typeof plainToken !== "string" || !ZOOM_PLAIN_TOKEN.test(plainToken)) {
        return { refused: "payload.plainToken must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -." };
      }
      if (!secret) return undefined;
      const encryptedToken = computeHmac({ algorithm: "sha256", encoding: "hex", secretEncoding: "utf8" }, secret, Buffer.from(plainToken, "utf8"));
      return { status: 200, contentType: "application/json", body: JSON.stringify({ plainToken, encryptedToken }) };
    }
    case "graph_validation_token": {
      const token = req.query?.get("validationToken");
      if (!token) return undefined;
      // Graph's token is a sentence of printable ASCII ("Validation: Testing client application reachability … Request-Id: <uuid>").
      if (!GRAPH_VALIDATION_TOKEN.test(token) || MARKUP.test(token)) return { refused: "validationToken must be 1 to 1024 printable ASCII characters without < > & \" or '." };
      return text(token, { "x-content-type-options": "nosniff" });
    }
    case "monday_challenge": {
      const body = method === "POST" ? parseJsonObject(req.rawBody) : null;
      if (!body || !("challenge" in body) || Object.keys(body).length !== 1) return undefined;
      const challenge = body.challenge;
      if (typeof challenge !== "string" || !MONDAY_CHALLENGE.test(challenge)) return { refused: "challenge must be 1 to 512 characters of a token." };
      return { status: 200, contentType: "application/json", body: JSON.stringify({ challenge }) };
    }
    case "trello_head":
      return method === "HEAD" ? { status: 200, contentType: "text/plain; charset=utf-8", body: "" } : undefined;
    case "woocommerce_ping":
      return method === "POST" && WOOCOMMERCE_PING.test(req.rawBody.toString("utf8")) ? text("") : undefined;
  }
}
