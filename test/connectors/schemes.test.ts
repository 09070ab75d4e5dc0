/**
 * The shared verification schemes, each against the provider's own signing code where one is on
 * npm (@octokit/webhooks-methods) or the provider's documented test vectors,
 * and each refusing a wrong secret, an altered body, a stale timestamp and a missing header.
 */
import { createHmac, generateKeyPairSync, sign as cryptoSign } from "node:crypto";
import { EventWebhook } from "@sendgrid/eventwebhook";
import twilio from "twilio";
import { sign as octokitSign } from "@octokit/webhooks-methods";
import { describe, expect, it } from "vitest";
import { validateDeclaration } from "../../src/connectors/declaration.ts";
import { dropboxChallenge } from "../../src/connectors/providers/dropbox/verification.ts";
import jira from "../../src/connectors/providers/jira/index.ts";
import { graphValidationToken } from "../../src/connectors/providers/microsoft/verification.ts";
import { mondayChallenge } from "../../src/connectors/providers/monday/verification.ts";
import { slackUrlVerification } from "../../src/connectors/providers/slack/verification.ts";
import { trelloHead } from "../../src/connectors/providers/trello/verification.ts";
import { zoomUrlValidation } from "../../src/connectors/providers/zoom/verification.ts";
import { allConnectors } from "../../src/connectors/registry.ts";
import { leverSignature } from "../../src/connectors/providers/lever/signature.ts";
import { pipedriveBasicAuth } from "../../src/connectors/providers/pipedrive/basicAuth.ts";
import { sendgridSignature } from "../../src/connectors/providers/sendgrid/signature.ts";
import { twilioSignature } from "../../src/connectors/providers/twilio/signature.ts";
import { schemeSchema, verifyWithScheme } from "../../src/connectors/schemes/index.ts";
import type { InboundRequest } from "../../src/connectors/types.ts";

const now = new Date("2026-01-01T12:00:00Z");
const seconds = Math.floor(now.getTime() / 1000);
const body = '{"id":"evt_1","type":"thing.happened","data":{"n":1}}';
const req = (headers: Record<string, string>, raw = body, extra: Partial<InboundRequest> = {}): InboundRequest => ({ headers, rawBody: Buffer.from(raw), ...extra });
const verify = (params: unknown, request: InboundRequest, secret: string, at = now) => verifyWithScheme(schemeSchema.parse(params), { req: request, secret, now: at });

describe("hmac", () => {
  const github = { type: "hmac", header: "x-hub-signature-256", prefix: "sha256=" };

  it("accepts GitHub's own signatures (@octokit/webhooks-methods) and GitHub's documented vector", async () => {
    expect(verify(github, req({ "x-hub-signature-256": await octokitSign("s3cret", body) }), "s3cret")).toEqual({ ok: true });
    const vector = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    expect(verify(github, req({ "x-hub-signature-256": vector }, "Hello, World!"), "It's a Secret to Everybody")).toEqual({ ok: true });
  });

  it("refuses a wrong secret, an altered body, a missing header, and no configured secret", async () => {
    const header = { "x-hub-signature-256": await octokitSign("s3cret", body) };
    expect(verify(github, req(header), "other")).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(verify(github, req(header, body.replace("1", "2")), "s3cret")).toMatchObject({ ok: false });
    expect(verify(github, req({}), "s3cret")).toMatchObject({ ok: false, reason: "missing signature header" });
    expect(verify(github, req(header), "")).toMatchObject({ ok: false });
  });

  it("signs templates with a timestamp (Slack v0), refusing stale and future timestamps", () => {
    const slack = { type: "hmac", header: "x-slack-signature", prefix: "v0=", signedContent: "v0:{timestamp}:{body}", timestampHeader: "x-slack-request-timestamp" };
    // Slack's documented example (https://api.slack.com/authentication/verifying-requests-from-slack).
    const slackBody =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const headers = { "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503", "x-slack-request-timestamp": "1531420618" };
    expect(verify(slack, req(headers, slackBody), "8f742231b10e8888abcd99yyyzzz85a5", new Date(1531420618_000))).toEqual({ ok: true });
    expect(verify(slack, req(headers, slackBody), "8f742231b10e8888abcd99yyyzzz85a5", new Date(1531420618_000 + 301_000))).toMatchObject({ ok: false });
    expect(verify(slack, req(headers, slackBody), "8f742231b10e8888abcd99yyyzzz85a5", new Date(1531420618_000 - 301_000))).toMatchObject({ ok: false });
    expect(verify(slack, req({ "x-slack-signature": headers["x-slack-signature"] }, slackBody), "8f742231b10e8888abcd99yyyzzz85a5", new Date(1531420618_000))).toMatchObject({ ok: false, reason: "missing timestamp" });
  });

  it("reads base64 digests and sha1 (Shopify-style, legacy X-Hub-Signature)", () => {
    const shopify = { type: "hmac", header: "x-shopify-hmac-sha256", encoding: "base64" };
    const digest = createHmac("sha256", "shp").update(body).digest("base64");
    expect(verify(shopify, req({ "x-shopify-hmac-sha256": digest }), "shp")).toEqual({ ok: true });
    expect(verify(shopify, req({ "x-shopify-hmac-sha256": digest.toLowerCase() }), "shp").ok).toBe(digest === digest.toLowerCase());
    const sha1 = { type: "hmac", header: "x-hub-signature", algorithm: "sha1", prefix: "sha1=" };
    expect(verify(sha1, req({ "x-hub-signature": `sha1=${createHmac("sha1", "k").update(body).digest("hex")}` }), "k")).toEqual({ ok: true });
  });

  it("signs the called URL with {url} (Square-style)", () => {
    const square = { type: "hmac", header: "x-square-hmacsha256-signature", encoding: "base64", signedContent: "{url}{body}" };
    const url = "https://switchyard.example/webhooks/d1/square";
    const digest = createHmac("sha256", "sq").update(url + body).digest("base64");
    expect(verify(square, req({ "x-square-hmacsha256-signature": digest }, body, { url }), "sq")).toEqual({ ok: true });
    expect(verify(square, req({ "x-square-hmacsha256-signature": digest }, body, { url: `${url}?x=1` }), "sq")).toMatchObject({ ok: false });
  });

  it("refuses declarations that cannot work", () => {
    expect(schemeSchema.safeParse({ type: "hmac", header: "X-Sig" }).success).toBe(false);
    expect(schemeSchema.safeParse({ type: "hmac", header: "x-sig", signedContent: "{timestamp}.{body}" }).success).toBe(false);
    expect(schemeSchema.safeParse({ type: "hmac", header: "x-sig", signedContent: "{nonce}{body}" }).success).toBe(false);
  });
});

describe("stripe (t=…,v1=…)", () => {
  const stripe = { type: "stripe", header: "stripe-signature" };
  const header = (secret: string, t = seconds, raw = body) => `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${raw}`).digest("hex")}`;

  it("accepts Stripe's documented construction, also with a second (rolled) v1 value", () => {
    expect(verify(stripe, req({ "stripe-signature": header("whsec_x") }), "whsec_x")).toEqual({ ok: true });
    const rolled = `${header("whsec_old")},v1=${header("whsec_x").split("v1=")[1]}`;
    expect(verify(stripe, req({ "stripe-signature": rolled }), "whsec_x")).toEqual({ ok: true });
  });

  it("refuses a wrong secret, an altered body, a stale timestamp and a missing header", () => {
    expect(verify(stripe, req({ "stripe-signature": header("whsec_x") }), "whsec_y")).toMatchObject({ ok: false });
    expect(verify(stripe, req({ "stripe-signature": header("whsec_x") }, `${body} `), "whsec_x")).toMatchObject({ ok: false });
    expect(verify(stripe, req({ "stripe-signature": header("whsec_x", seconds - 301) }), "whsec_x")).toMatchObject({ ok: false });
    expect(verify(stripe, req({}), "whsec_x")).toMatchObject({ ok: false, reason: "missing signature header" });
    expect(verify(stripe, req({ "stripe-signature": "v1=abc" }), "whsec_x")).toMatchObject({ ok: false });
  });
});

describe("token (shared secret header)", () => {
  const gitlab = { type: "token", header: "x-gitlab-token" };
  it("accepts the exact token and refuses anything else", () => {
    expect(verify(gitlab, req({ "x-gitlab-token": "tok" }), "tok")).toEqual({ ok: true });
    expect(verify(gitlab, req({ "x-gitlab-token": "tok2" }), "tok")).toMatchObject({ ok: false });
    expect(verify(gitlab, req({}), "tok")).toMatchObject({ ok: false });
    expect(verify({ type: "token", header: "authorization", prefix: "Bearer " }, req({ authorization: "Bearer tok" }), "tok")).toEqual({ ok: true });
  });
});

describe("handshakes", () => {
  it("answers each provider's URL verification as documented", () => {
    expect(slackUrlVerification.answer(req({}, '{"type":"url_verification","challenge":"c1"}'), "s")).toMatchObject({ status: 200, body: "c1" });
    expect(dropboxChallenge.answer(req({}, "", { method: "GET", query: new URLSearchParams("challenge=dbx") }), "")).toMatchObject({
      body: "dbx",
      headers: { "x-content-type-options": "nosniff" },
    });
    expect(graphValidationToken.answer(req({}, "", { query: new URLSearchParams("validationToken=Validation%3A+Testing") }), "")).toMatchObject({
      body: "Validation: Testing",
    });
    // Zoom: encryptedToken = hex HMAC-SHA256(secret token, plainToken).
    const zoom = zoomUrlValidation.answer(req({}, '{"event":"endpoint.url_validation","payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"}}'), "zsecret");
    expect(JSON.parse((zoom as { body: string }).body)).toEqual({ plainToken: "qgg8vlvZRS6UYooatFL8Aw", encryptedToken: createHmac("sha256", "zsecret").update("qgg8vlvZRS6UYooatFL8Aw").digest("hex") });
    // monday: the same JSON back; Trello: 200 to a HEAD.
    const monday = mondayChallenge.answer(req({}, '{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}'), "");
    expect(monday).toMatchObject({ status: 200, contentType: "application/json" });
    expect(JSON.parse((monday as { body: string }).body)).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect(mondayChallenge.answer(req({}, '{"challenge":"<script>"}'), "")).toMatchObject({ refused: expect.any(String) });
    expect(trelloHead.answer(req({}, "", { method: "HEAD" }), "")).toMatchObject({ status: 200, body: "" });
  });

  // Every handshake any connector declares (one field, whichever section receives: Graph's come with subscription notifications).
  const declared = [...new Set(allConnectors().flatMap((def) => def.declaration.handshakes))];

  it("no handshake answered before the signature check computes anything with the secret", () => {
    const requests = [
      req({ "x-hook-secret": "attacker-chosen" }, '{"type":"url_verification","challenge":"v0:1:{}"}'),
      req({}, '{"event":"endpoint.url_validation","payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"}}'),
      req({}, "", { method: "GET", query: new URLSearchParams("challenge=v0:1:{}&validationToken=v0:1:{}") }),
      req({}, '{"verification_token":"secret_abc"}'),
    ];
    expect(declared.map((h) => h.type).sort()).toEqual(["dropbox_challenge", "graph_validation_token", "monday_challenge", "slack_url_verification", "trello_head", "woocommerce_ping", "zoom_url_validation"]);
    for (const handshake of declared) {
      if (handshake.stage !== "before_verify") continue;
      for (const r of requests) {
        // Whatever the secret, the same answer: the answer cannot carry anything keyed by it.
        expect(handshake.answer(r, "secret-one"), handshake.type).toEqual(handshake.answer(r, "another-secret"));
      }
    }
    expect(zoomUrlValidation.stage).toBe("after_verify");
  });

  it("leaves ordinary deliveries alone", () => {
    for (const handshake of declared) expect(handshake.answer(req({}, body), "s"), handshake.type).toBeUndefined();
  });

  it("a declaration naming something else as a handshake fails at load, naming the field", () => {
    expect(() => validateDeclaration("acme", { ...jira, handshakes: [{ type: "dropbox_challenge" }] })).toThrow(/handshakes\.0: must be a provider's handshake/);
  });

  it("a handshake needs a section that receives at the inbound URL", () => {
    const { webhook: _webhook, subscription: _subscription, ...connectOnly } = jira;
    expect(() => validateDeclaration("acme", { ...connectOnly, triggers: [], handshakes: [dropboxChallenge] })).toThrow(/handshakes: answered at the inbound URL/);
  });
});

describe("hmac_body_fields (Lever: the signature and what it signs are in the body)", () => {
  const params = schemeSchema.parse({ own: leverSignature, params: { signaturePath: "signature", signedPaths: ["token", "triggeredAt"] } });
  const key = "lever-signature-token";
  const now = new Date("2026-01-02T12:00:00Z");
  // Lever's documented check: hex HMAC-SHA256 of token + triggeredAt, keyed with the webhook's signatureToken.
  const delivery = (signingKey = key, token = "6f1b9d0a0c2e4b7d9e8f", triggeredAt: number | string = 1767355200000) => ({
    triggeredAt,
    event: "candidateHired",
    token,
    signature: createHmac("sha256", signingKey).update(`${token}${triggeredAt}`).digest("hex"),
    data: { opportunityId: "7f23e772" },
  });
  const verify = (body: unknown, secret = key) =>
    verifyWithScheme(params, { req: { headers: {}, rawBody: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)) } as InboundRequest, secret, now });

  it("accepts a delivery signed with the webhook's signature token", () => {
    expect(verify(delivery())).toEqual({ ok: true });
  });

  it("refuses a wrong key, a changed token or time, a missing signature or signed value, a body that is not JSON, and no key", () => {
    expect(verify(delivery("another-webhooks-token"))).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify({ ...delivery(), token: "0000000000" })).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify({ ...delivery(), triggeredAt: 1767355200001 })).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verify({ ...delivery(), signature: undefined })).toEqual({ ok: false, reason: "missing signature" });
    expect(verify({ ...delivery(), token: undefined })).toEqual({ ok: false, reason: "missing signed values" });
    expect(verify("not json")).toEqual({ ok: false, reason: "missing signature" });
    expect(verify(delivery(), "").ok).toBe(false);
  });

  it("the declaration is validated: at least one signed path", () => {
    expect(schemeSchema.safeParse({ own: leverSignature, params: { signaturePath: "signature", signedPaths: [] } }).success).toBe(false);
  });
});

describe("ecdsa (SendGrid's Signed Event Webhook)", () => {
  // SendGrid signs with an ECDSA P-256 key and hands out the public key as base64 DER.
  const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const publicKey = pair.publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const sendgrid = { own: sendgridSignature, params: { header: "x-twilio-email-event-webhook-signature", timestampHeader: "x-twilio-email-event-webhook-timestamp" } };
  const events = '[{"email":"example@test.com","timestamp":1513299569,"event":"delivered","sg_event_id":"e1"}]\r\n';
  const signed = (raw: string, at = seconds, key = pair.privateKey) => ({
    "x-twilio-email-event-webhook-signature": cryptoSign("sha256", Buffer.from(`${at}${raw}`), key).toString("base64"),
    "x-twilio-email-event-webhook-timestamp": String(at),
  });

  it("accepts what SendGrid's own verifier (@sendgrid/eventwebhook) accepts", () => {
    const headers = signed(events);
    const ew = new EventWebhook();
    expect(ew.verifySignature(ew.convertPublicKeyToECDSA(publicKey), events, headers["x-twilio-email-event-webhook-signature"], headers["x-twilio-email-event-webhook-timestamp"])).toBe(true);
    expect(verify(sendgrid, req(headers, events), publicKey)).toEqual({ ok: true });
    // The key in PEM form, as SendGrid's console also shows it, works the same.
    expect(verify(sendgrid, req(headers, events), pair.publicKey.export({ format: "pem", type: "spki" }).toString())).toEqual({ ok: true });
  });

  it("refuses another key, an altered body, a stale or missing timestamp and a missing signature", () => {
    const headers = signed(events);
    expect(verify(sendgrid, req(headers, events), other)).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(verify(sendgrid, req(headers, events.replace("delivered", "bounce")), publicKey)).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(verify(sendgrid, req(signed(events, seconds - 301), events), publicKey)).toMatchObject({ ok: false, reason: "timestamp outside the 300-second window" });
    expect(verify(sendgrid, req({ "x-twilio-email-event-webhook-signature": headers["x-twilio-email-event-webhook-signature"] }, events), publicKey)).toMatchObject({ ok: false, reason: "missing timestamp" });
    expect(verify(sendgrid, req({ "x-twilio-email-event-webhook-timestamp": String(seconds) }, events), publicKey)).toMatchObject({ ok: false, reason: "missing signature header" });
    // The timestamp is signed: moving it is an altered request.
    expect(verify(sendgrid, req({ ...headers, "x-twilio-email-event-webhook-timestamp": String(seconds + 1) }, events), publicKey)).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(verify(sendgrid, req(headers, events), "not a key")).toMatchObject({ ok: false });
    expect(verify(sendgrid, req(headers, events), "")).toMatchObject({ ok: false, reason: "no webhook secret configured" });
  });
});

describe("hmac_form_params (Twilio's X-Twilio-Signature)", () => {
  const twilioScheme = { own: twilioSignature, params: { header: "x-twilio-signature" } };
  const authToken = "12345";
  const url = "https://switchyard.example.com/webhooks/dep_1/twilio?subscription=sub_1";
  const params = { MessageSid: "SM0123456789abcdef0123456789abcdef", AccountSid: "AC0123456789abcdef0123456789abcdef", From: "+14155550100", To: "+14155550199", Body: "Hello there ☃ & more", NumMedia: "0", SmsStatus: "received" };
  const form = new URLSearchParams(params).toString();
  const signedBy = (token: string, at = url, p: Record<string, string> = params) => ({ "x-twilio-signature": twilio.getExpectedTwilioSignature(token, at, p) });

  it("accepts what Twilio signs, and agrees with Twilio's own validateRequest", () => {
    const headers = signedBy(authToken);
    expect(twilio.validateRequest(authToken, headers["x-twilio-signature"], url, params)).toBe(true);
    expect(verify(twilioScheme, req(headers, form, { url }), authToken)).toEqual({ ok: true });
    // Twilio may sign the URL with its default port written out.
    expect(verify(twilioScheme, req(signedBy(authToken, url.replace(".com/", ".com:443/")), form, { url }), authToken)).toEqual({ ok: true });
    // Twilio's documented example (twilio.com/docs/usage/security, "Validating requests").
    const documented = { CallSid: "CA1234567890ABCDE", Caller: "+12349013030", Digits: "1234", From: "+12349013030", To: "+18005551212" };
    const docUrl = "https://mycompany.com/myapp.php?foo=1&bar=2";
    expect(verify(twilioScheme, req({ "x-twilio-signature": "0/KCTR6DLpKmkAf8muzZqo1nDgQ=" }, new URLSearchParams(documented).toString(), { url: docUrl }), authToken)).toEqual({ ok: true });
  });

  it("refuses another account's token, an altered parameter, another URL and a missing signature", () => {
    const headers = signedBy(authToken);
    expect(verify(twilioScheme, req(headers, form, { url }), "54321")).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(verify(twilioScheme, req(headers, form.replace("Hello", "Hallo"), { url }), authToken)).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(verify(twilioScheme, req(headers, form, { url: url.replace("sub_1", "sub_2") }), authToken)).toMatchObject({ ok: false, reason: "signature mismatch" });
    expect(twilio.validateRequest(authToken, headers["x-twilio-signature"], url.replace("sub_1", "sub_2"), params)).toBe(false);
    expect(verify(twilioScheme, req({}, form, { url }), authToken)).toMatchObject({ ok: false, reason: "missing signature header" });
    expect(verify(twilioScheme, req(headers, form, { url }), "")).toMatchObject({ ok: false, reason: "no webhook secret configured" });
  });
});

describe("basic (Pipedrive: the HTTP Basic credentials given when the webhook was made)", () => {
  const params = schemeSchema.parse({ own: pipedriveBasicAuth, params: { user: "switchyard" } });
  const secret = "a-subscriptions-own-password";
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  const verify = (authorization: string | undefined, key = secret) =>
    verifyWithScheme(params, { req: { headers: { authorization }, rawBody: Buffer.from("{}") } as InboundRequest, secret: key, now: new Date() });

  it("accepts the declared user with the secret as the password, whatever the scheme name's case", () => {
    expect(verify(basic("switchyard", secret))).toEqual({ ok: true });
    expect(verify(basic("switchyard", secret).replace("Basic", "basic"))).toEqual({ ok: true });
  });

  it("refuses a wrong password or user, a missing or malformed header, another scheme, and no key", () => {
    expect(verify(basic("switchyard", "guessed"))).toEqual({ ok: false, reason: "credentials mismatch" });
    expect(verify(basic("someone", secret))).toEqual({ ok: false, reason: "credentials mismatch" });
    expect(verify(undefined)).toEqual({ ok: false, reason: "missing authorization header" });
    expect(verify(`Bearer ${secret}`)).toEqual({ ok: false, reason: "malformed authorization header" });
    expect(verify(`Basic ${Buffer.from(secret).toString("base64")}`)).toEqual({ ok: false, reason: "malformed authorization header" });
    expect(verify(basic("switchyard", secret), "").ok).toBe(false);
  });

  it("the declaration is validated: a user without a colon", () => {
    expect(schemeSchema.safeParse({ own: pipedriveBasicAuth, params: { user: "a:b" } }).success).toBe(false);
    expect(schemeSchema.safeParse({ own: pipedriveBasicAuth }).success).toBe(false);
  });
});
