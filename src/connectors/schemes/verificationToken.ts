/**
 * A token a provider hands over, unsigned, when a subscription is created, for the operator to
 * paste back at the provider (declared `webhook.verificationToken`; Notion's `verification_token`).
 * Reading it is generic: the declaration names the body's one member.
 */
import { parseJsonObject } from "../json.ts";
import type { InboundRequest } from "../types.ts";
import type { HandshakeReply } from "./handshakes.ts";

/**
 * What a verification token may be: visible ASCII (Notion's are `secret_` and letters and digits),
 * at most 512 characters — a bound on what an unsigned request can make us store and show.
 */
const VERIFICATION_TOKEN = /^[\x21-\x7e]{1,512}$/;

/**
 * The hand-off body and nothing else: a JSON object whose only member is `field`, a string.
 * Anything event-like (a `type`, an `id`, any second member) is not one, and goes on to the
 * signature check like every event.
 */
export function readVerificationToken(req: InboundRequest, field: string): string | undefined {
  if ((req.method ?? "POST") !== "POST") return undefined;
  const body = parseJsonObject(req.rawBody);
  if (!body || Object.keys(body).length !== 1) return undefined;
  const token = body[field];
  return typeof token === "string" && VERIFICATION_TOKEN.test(token) ? token : undefined;
}

/** The same answer whether or not the token is kept: the caller learns nothing about the deployment. */
export const VERIFICATION_TOKEN_RECEIVED: HandshakeReply = { status: 200, contentType: "application/json", body: JSON.stringify({ verification: "received" }) };
