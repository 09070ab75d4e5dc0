/**
 * The shared verification schemes. A declaration names one (`webhook.scheme.type`) with its
 * parameters; adding a provider never adds verification code unless its scheme is truly new.
 */
import { z } from "zod";
import type { VerifyResult } from "../types.ts";
import type { SchemeInput } from "./common.ts";
import { hmacScheme, verifyHmac } from "./hmac.ts";
import { jwtScheme, verifyJwt } from "./jwt.ts";
import { stripeScheme, verifyStripe } from "./stripe.ts";
import { tokenScheme, verifyToken } from "./token.ts";
import { bodyTokenScheme, verifyBodyToken } from "./bodyToken.ts";
import { boxScheme, verifyBox } from "./box.ts";
import { hmacBodyTimestampScheme, verifyHmacBodyTimestamp } from "./hmacBodyTimestamp.ts";
import { jwtHs256Scheme, verifyJwtHs256 } from "./jwtHs256.ts";
import { hmacBodyFieldsScheme, verifyHmacBodyFields } from "./hmacBodyFields.ts";
import { ecdsaScheme, verifyEcdsa } from "./ecdsa.ts";
import { hmacFormParamsScheme, verifyHmacFormParams } from "./hmacFormParams.ts";
import { basicScheme, verifyBasic } from "./basic.ts";

export const schemeSchema = z.discriminatedUnion("type", [
  hmacScheme,
  stripeScheme,
  tokenScheme,
  jwtScheme,
  hmacBodyTimestampScheme,
  boxScheme,
  bodyTokenScheme,
  jwtHs256Scheme,
  hmacBodyFieldsScheme,
  ecdsaScheme,
  hmacFormParamsScheme,
  basicScheme,
]);
export type SchemeParams = z.infer<typeof schemeSchema>;
export type SchemeType = SchemeParams["type"];

export function verifyWithScheme(params: SchemeParams, input: SchemeInput): VerifyResult {
  switch (params.type) {
    case "hmac":
      return verifyHmac(params, input);
    case "stripe":
      return verifyStripe(params, input);
    case "token":
      return verifyToken(params, input);
    case "jwt":
      return verifyJwt(params, input);
    case "hmac_body_timestamp":
      return verifyHmacBodyTimestamp(params, input);
    case "box":
      return verifyBox(params, input);
    case "body_token":
      return verifyBodyToken(params, input);
    case "jwt_hs256":
      return verifyJwtHs256(params, input);
    case "hmac_body_fields":
      return verifyHmacBodyFields(params, input);
    case "ecdsa":
      return verifyEcdsa(params, input);
    case "hmac_form_params":
      return verifyHmacFormParams(params, input);
    case "basic":
      return verifyBasic(params, input);
  }
}

/**
 * Whether a valid signature also proves the request is recent: the signed content includes a
 * timestamp the scheme holds to a window (Slack/Zoom `{timestamp}`, Stripe, Box,
 * Linear's body timestamp, a JWT's iat/exp). Without one, a captured delivery verifies forever, so
 * the inbound route also deduplicates on the body's digest (the connector's replay window).
 */
export function signsTimestamp(params: SchemeParams): boolean {
  switch (params.type) {
    case "hmac":
      return params.signedContent.includes("{timestamp}");
    case "stripe":
      return params.signedContent.includes("{timestamp}");
    case "box":
    case "hmac_body_timestamp":
    case "jwt":
    case "ecdsa":
      return true;
    case "token":
    case "body_token":
    case "basic":
    // Lever signs a token and its time, not the body, and documents no window for the time.
    case "hmac_body_fields":
    // Twilio signs no timestamp: a captured request verifies again (the body digest is remembered).
    case "hmac_form_params":
    // An `exp` is not documented for Jira's token: a captured delivery may verify again.
    case "jwt_hs256":
      return false;
  }
}

export { handshakeSchema, type Handshake, type HandshakeRefusal, type HandshakeReply } from "./handshakes.ts";
export type { SchemeInput } from "./common.ts";
