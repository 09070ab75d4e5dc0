/**
 * The shared verification schemes: those two or more providers use. A declaration names one
 * (`webhook.scheme.type`) with its parameters; a scheme only one provider uses is that provider's
 * own (`scheme: { own: …, params: … }`, ./own.ts), in its folder. Adding a provider never adds code
 * here: a new way of signing starts as the provider's own, and moves here when a second provider shares it.
 */
import * as z from "zod";
import type { VerifyResult } from "../types.ts";
import type { SchemeInput } from "./common.ts";
import { hmacScheme, verifyHmac } from "./hmac.ts";
import { jwtHs256Scheme, verifyJwtHs256 } from "./jwtHs256.ts";
import { type OwnSchemeDeclaration, type OwnSchemeParams, ownSchemeSchema } from "./own.ts";
import { stripeScheme, verifyStripe } from "./stripe.ts";
import { tokenScheme, verifyToken } from "./token.ts";

const sharedSchemeSchema = z.discriminatedUnion("type", [hmacScheme, stripeScheme, tokenScheme, jwtHs256Scheme]);
type SharedSchemeParams = z.output<typeof sharedSchemeSchema>;

/** A shared scheme by its `type`, or a provider's own by `own`: each validated by its own schema, errors naming its fields. */
export const schemeSchema = z
  .custom<z.input<typeof sharedSchemeSchema> | OwnSchemeDeclaration>()
  .transform((declared, ctx): SharedSchemeParams | OwnSchemeParams => {
    const isOwn = typeof declared === "object" && declared !== null && "own" in declared;
    const parsed = isOwn ? ownSchemeSchema.safeParse(declared) : sharedSchemeSchema.safeParse(declared);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  });
export type SchemeParams = z.output<typeof schemeSchema>;

const isOwn = (params: SchemeParams): params is OwnSchemeParams => "own" in params;

export function verifyWithScheme(params: SchemeParams, input: SchemeInput): VerifyResult {
  if (isOwn(params)) return params.own.verify(params.params, input);
  switch (params.type) {
    case "hmac":
      return verifyHmac(params, input);
    case "stripe":
      return verifyStripe(params, input);
    case "token":
      return verifyToken(params, input);
    case "jwt_hs256":
      return verifyJwtHs256(params, input);
  }
}

/**
 * Whether a valid signature also proves the request is recent: the signed content includes a
 * timestamp the scheme holds to a window (Slack/Zoom `{timestamp}`, Stripe, and the providers' own
 * that say so: Box, Linear's body timestamp, a JWT's iat/exp). Without one, a captured delivery
 * verifies forever, so the inbound route also deduplicates on the body's digest (the connector's replay window).
 */
export function signsTimestamp(params: SchemeParams): boolean {
  if (isOwn(params)) return params.own.signsTimestamp;
  switch (params.type) {
    case "hmac":
      return params.signedContent.includes("{timestamp}");
    case "stripe":
      return params.signedContent.includes("{timestamp}");
    case "token":
    // An `exp` is not documented for Jira's token: a captured delivery may verify again.
    case "jwt_hs256":
      return false;
  }
}

/** The JWKS the scheme's check needs fetched (Gmail's Pub/Sub push tokens), if any. */
export const jwksUrlOf = (params: SchemeParams): string | undefined => (isOwn(params) ? params.own.jwksUrl?.(params.params) : undefined);

/** Where the scheme's secret is inside the JSON body (Figma's passcode), if it is there: never stored nor forwarded. */
export const secretPathOf = (params: SchemeParams): string | undefined => (isOwn(params) ? params.own.secretPath?.(params.params) : undefined);

export { handshakeSchema, type Handshake, type HandshakeRefusal, type HandshakeReply } from "./handshakes.ts";
export type { SchemeInput } from "./common.ts";
export { ownScheme, type OwnScheme } from "./own.ts";
