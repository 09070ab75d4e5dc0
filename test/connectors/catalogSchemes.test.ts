/**
 * The verification schemes the catalog added next to the shared ones: an HMAC whose timestamp is
 * inside the signed body (Linear), Box's two-key HMAC over body + RFC 3339 timestamp, and a secret
 * carried in the body (Figma's passcode). Each is driven through `verifyWithScheme` with its
 * declared parameters, as the compiled connectors use it.
 */
import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { boxSignature } from "../../src/connectors/providers/box/signature.ts";
import { figmaPasscode } from "../../src/connectors/providers/figma/passcode.ts";
import { linearSignature } from "../../src/connectors/providers/linear/signature.ts";
import { schemeSchema, verifyWithScheme } from "../../src/connectors/schemes/index.ts";
import type { InboundRequest } from "../../src/connectors/types.ts";

const now = new Date("2026-01-01T12:00:00Z");
const secret = "whsec-like-shared-secret";
const mac = (key: string, content: string, encoding: "hex" | "base64") => createHmac("sha256", key).update(content).digest(encoding);
const request = (headers: Record<string, string | undefined>, body: string): InboundRequest => ({ headers, rawBody: Buffer.from(body) });

describe("hmac_body_timestamp (Linear)", () => {
  const params = schemeSchema.parse({ own: linearSignature, params: { header: "linear-signature", timestampPath: "webhookTimestamp", timestampUnit: "ms", toleranceSeconds: 60 } });
  const body = (offsetMs: number, extra = "") => `{"action":"create","type":"Issue"${extra},"webhookTimestamp":${now.getTime() + offsetMs}}`;
  const verify = (headers: Record<string, string | undefined>, raw: string, key = secret) => verifyWithScheme(params, { req: request(headers, raw), secret: key, now });

  test("accepts a signed body whose timestamp is within a minute, either way", () => {
    for (const offset of [0, -59_000, 59_000]) expect(verify({ "linear-signature": mac(secret, body(offset), "hex") }, body(offset)), String(offset)).toEqual({ ok: true });
  });

  test("refuses a stale or future timestamp even when the signature is right", () => {
    for (const offset of [-61_000, 61_000, -3_600_000]) expect(verify({ "linear-signature": mac(secret, body(offset), "hex") }, body(offset)).ok, String(offset)).toBe(false);
  });

  test("refuses a wrong secret, an altered body, a missing header, a body without a timestamp and no configured secret", () => {
    const raw = body(0);
    const signature = mac(secret, raw, "hex");
    expect(verify({ "linear-signature": mac("other", raw, "hex") }, raw)).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify({ "linear-signature": signature }, body(0, ',"x":1'))).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify({}, raw)).toEqual({ ok: false, reason: "missing signature header" });
    const untimed = '{"action":"create","type":"Issue"}';
    expect(verify({ "linear-signature": mac(secret, untimed, "hex") }, untimed)).toEqual({ ok: false, reason: "missing timestamp" });
    expect(verify({ "linear-signature": signature }, raw, "").ok).toBe(false);
  });

  test("a timestamp in seconds is read as seconds", () => {
    const seconds = schemeSchema.parse({ own: linearSignature, params: { header: "x-sig", timestampPath: "meta.ts", timestampUnit: "s", toleranceSeconds: 300 } });
    const raw = `{"meta":{"ts":${now.getTime() / 1000 - 200}}}`;
    expect(verifyWithScheme(seconds, { req: request({ "x-sig": mac(secret, raw, "hex") }, raw), secret, now })).toEqual({ ok: true });
  });

  test("the declaration is validated: a timestamp path is required", () => {
    expect(schemeSchema.safeParse({ own: linearSignature, params: { header: "linear-signature" } }).success).toBe(false);
  });
});

describe("box", () => {
  const params = schemeSchema.parse({ own: boxSignature });
  const raw = '{"type":"webhook_event","id":"eb0c4e06","trigger":"FILE.UPLOADED"}';
  // Box's documentation format: an RFC 3339 time with an offset.
  const at = (offsetSeconds: number) => new Date(now.getTime() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00");
  const headers = (timestamp: string, primaryKey = secret, secondaryKey = "secondary-key") => ({
    "box-delivery-timestamp": timestamp,
    "box-signature-primary": mac(primaryKey, raw + timestamp, "base64"),
    "box-signature-secondary": mac(secondaryKey, raw + timestamp, "base64"),
  });
  const verify = (h: Record<string, string | undefined>, body = raw) => verifyWithScheme(params, { req: request(h, body), secret, now });

  test("accepts a delivery whose primary or secondary signature is made with the configured key", () => {
    expect(verify(headers(at(0)))).toEqual({ ok: true });
    // Mid-rotation: the operator has configured the key Box now signs with as secondary.
    expect(verify(headers(at(0), "retired-primary", secret))).toEqual({ ok: true });
    expect(verify({ ...headers(at(-300)), "box-signature-secondary": undefined })).toEqual({ ok: true });
  });

  test("refuses deliveries older than ten minutes, or as far in the future", () => {
    expect(verify(headers(at(-601))).ok).toBe(false);
    expect(verify(headers(at(601))).ok).toBe(false);
    expect(verify(headers(at(-599)))).toEqual({ ok: true });
  });

  test("the timestamp is signed: a fresh timestamp on an old signature does not pass", () => {
    const old = headers(at(-3600));
    expect(verify({ ...old, "box-delivery-timestamp": at(0) })).toEqual({ ok: false, reason: "signature mismatch" });
  });

  test("refuses a wrong key, an altered body, missing headers and a timestamp that is not RFC 3339", () => {
    expect(verify(headers(at(0), "wrong", "also-wrong"))).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify(headers(at(0)), raw.replace("UPLOADED", "DELETED"))).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify({ "box-delivery-timestamp": at(0) })).toEqual({ ok: false, reason: "missing signature header" });
    expect(verify({ ...headers(at(0)), "box-delivery-timestamp": undefined })).toEqual({ ok: false, reason: "missing timestamp" });
    const unix = String(now.getTime() / 1000);
    expect(verify({ ...headers(unix), "box-delivery-timestamp": unix })).toEqual({ ok: false, reason: "malformed timestamp" });
  });
});

describe("body_token (Figma passcode)", () => {
  const params = schemeSchema.parse({ own: figmaPasscode, params: { path: "passcode" } });
  const verify = (body: string, key = secret) => verifyWithScheme(params, { req: request({}, body), secret: key, now });

  test("accepts the configured passcode and nothing else", () => {
    expect(verify(JSON.stringify({ event_type: "FILE_COMMENT", passcode: secret }))).toEqual({ ok: true });
    expect(verify(JSON.stringify({ event_type: "FILE_COMMENT", passcode: `${secret}x` }))).toEqual({ ok: false, reason: "token mismatch" });
    expect(verify(JSON.stringify({ event_type: "FILE_COMMENT" }))).toEqual({ ok: false, reason: "missing token" });
    expect(verify(JSON.stringify({ passcode: 12345 }))).toEqual({ ok: false, reason: "missing token" });
    expect(verify("not json")).toEqual({ ok: false, reason: "missing token" });
    expect(verify(JSON.stringify({ passcode: "" }), "").ok).toBe(false);
  });
});
