/**
 * HMAC over the URL the provider called followed by every form parameter of the body, name then
 * value, sorted by name (a repeated name: each distinct value, sorted): Twilio's `X-Twilio-Signature`,
 * base64 HMAC-SHA1 keyed by the account's Auth Token. The URL is tried as called and with its
 * default port written out, as Twilio's own validator does (Twilio may sign either form).
 */
import * as z from "zod";
import { safeEqual } from "../../signatures.ts";
import type { InboundRequest, VerifyResult } from "../../types.ts";
import { headerName, noSecret, type SchemeInput } from "../../schemes/common.ts";
import { ownScheme } from "../../schemes/own.ts";
import { computeHmac } from "../../schemes/hmac.ts";

const paramsSchema = z.object({
  header: headerName,
  algorithm: z.enum(["sha1", "sha256"]).default("sha1"),
  encoding: z.enum(["hex", "base64"]).default("base64"),
});
type HmacFormParamsParams = z.infer<typeof paramsSchema>;

/** The signed text: the URL, then name + value of each parameter in name order. */
function formParamsContent(url: string, body: URLSearchParams): string {
  const values = new Map<string, Set<string>>();
  for (const [name, value] of body) values.set(name, (values.get(name) ?? new Set()).add(value));
  let content = url;
  for (const name of [...values.keys()].sort()) for (const value of [...values.get(name)!].sort()) content += name + value;
  return content;
}

/** The URL as called, and with the scheme's default port written out (or left out, when it was written). */
function urlForms(url: string): string[] {
  const match = /^(https?):\/\/([^/?#]+)(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme, authority, rest] = match;
  const port = scheme.toLowerCase() === "https" ? "443" : "80";
  const host = authority.replace(/:\d+$/, "");
  const written = /:\d+$/.test(authority);
  return [url, written ? `${scheme}://${host}${rest}` : `${scheme}://${host}:${port}${rest}`];
}

function verifyHmacFormParams(params: HmacFormParamsParams, { req, secret }: SchemeInput): VerifyResult {
  if (!secret) return noSecret;
  const given = req.headers[params.header]?.trim();
  if (!given) return { ok: false, reason: "missing signature header" };
  if (!req.url) return { ok: false, reason: "the called URL is unknown" };
  const body = formBody(req);
  const key = { ...params, secretEncoding: "utf8" as const };
  // Both forms are computed and compared: no early exit tells which one matched.
  const matches = urlForms(req.url).map((url) => safeEqual(given, computeHmac(key, secret, Buffer.from(formParamsContent(url, body), "utf8"))));
  return matches.includes(true) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

/** An application/x-www-form-urlencoded body as parameters (an empty body has none). */
function formBody(req: Pick<InboundRequest, "rawBody">): URLSearchParams {
  return new URLSearchParams(req.rawBody.toString("utf8"));
}

// Twilio signs no timestamp: a captured request verifies again (the body digest is remembered).
export const twilioSignature = ownScheme({ type: "hmac_form_params", params: paramsSchema, verify: verifyHmacFormParams, signsTimestamp: false });
