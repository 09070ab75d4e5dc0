/**
 * Signs a request the way a provider using a shared verification scheme does, from the scheme's
 * declared parameters alone — so inbound tests can be parametrised over every connector in the
 * registry. Written independently of src/connectors/schemes (it is the other side of the wire).
 */
import { createHmac } from "node:crypto";
import type { SchemeParams } from "../../src/connectors/schemes/index.ts";

export interface SignedInbound {
  headers: Record<string, string>;
  body: string;
}

/** The headers a provider sends for `body` at `now`; undefined for schemes that need asymmetric keys (jwt). */
export function signForScheme(scheme: SchemeParams, secret: string, body: string, now: Date, url = ""): Record<string, string> | undefined {
  const seconds = String(Math.floor(now.getTime() / 1000));
  const fill = (template: string) => template.replaceAll("{timestamp}", seconds).replaceAll("{url}", url).replace("{body}", body);
  if ("own" in scheme) {
    // A provider's own scheme, by the name it declares.
    switch (scheme.type) {
      case "basic":
        return { authorization: `Basic ${Buffer.from(`${(scheme.params as { user: string }).user}:${secret}`).toString("base64")}` };
      case "box": {
        // Box's documented format: RFC 3339 with an offset; signed after the body bytes.
        const timestamp = now.toISOString().replace(/\.\d{3}Z$/, "-00:00");
        return { "box-delivery-timestamp": timestamp, "box-signature-primary": createHmac("sha256", secret).update(body + timestamp).digest("base64") };
      }
      // Asymmetric keys (Gmail's JWT, SendGrid's ECDSA), the URL and form parameters (Twilio), or the secret or
      // timestamp inside the body (Linear, Lever, Figma): these cannot be signed by headers alone;
      // test/connectors/catalogInbound.test.ts signs them per provider.
      default:
        return undefined;
    }
  }
  switch (scheme.type) {
    case "hmac": {
      const key = scheme.secretEncoding === "base64" ? Buffer.from(secret, "base64") : secret;
      // Zendesk writes its timestamp as RFC 3339 (2021-03-25T05:09:27Z) and signs that text.
      // HubSpot writes milliseconds.
      const time = scheme.timestampFormat === "rfc3339" ? now.toISOString().replace(/\.\d{3}Z$/, "Z") : scheme.timestampFormat === "unix_milliseconds" ? String(now.getTime()) : seconds;
      // HubSpot signs the URI with some escapes decoded.
      const signedUrl = scheme.urlDecode.reduce((u, escape) => u.replaceAll(escape, String.fromCharCode(parseInt(escape.slice(1), 16))), url);
      const content = scheme.signedContent.replaceAll("{timestamp}", time).replaceAll("{url}", signedUrl).replace("{body}", body);
      const digest = createHmac(scheme.algorithm, key).update(content).digest(scheme.encoding);
      return { [scheme.header]: `${scheme.prefix}${digest}`, ...(scheme.timestampHeader ? { [scheme.timestampHeader]: time } : {}) };
    }
    case "stripe": {
      const digest = createHmac(scheme.algorithm, secret).update(fill(scheme.signedContent)).digest(scheme.encoding);
      return { [scheme.header]: `${scheme.timestampKey}=${seconds},${scheme.signatureKey}=${digest}` };
    }
    case "token":
      return { [scheme.header]: `${scheme.prefix}${secret}` };
    // A JWT signed with the app's secret (Jira, monday): catalogInbound.test.ts signs it per provider.
    case "jwt_hs256":
      return undefined;
  }
}

/** A secret in the form the scheme expects (base64 where the declaration says so). */
export function secretForScheme(scheme: SchemeParams): string {
  if (!("own" in scheme) && scheme.type === "hmac" && scheme.secretEncoding === "base64") return Buffer.from("a base64 webhook secret").toString("base64");
  return "the-webhook-secret";
}
