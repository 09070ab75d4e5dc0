/**
 * Twilio's phone-number webhooks, end to end against a fake following its REST API
 * (twilio.com/docs/phone-numbers/api/incomingphonenumber-resource): connecting the Account SID and
 * Auth Token and listing Twilio triggers points every number of the account at the connection's
 * own URL (`SmsUrl`, `StatusCallback`, form-encoded POSTs), keeping the URLs that were there. Twilio
 * then POSTs form-encoded messages signed with the account's Auth Token (`X-Twilio-Signature`,
 * made here with the `twilio` package's own code); each becomes one event of that account, its
 * parameters as data. Forged ones are refused. Disconnecting puts the old URLs back.
 */
import { randomUUID } from "node:crypto";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, connectWithCredentials } from "./helpers.ts";

interface FakeNumber {
  sid: string;
  phone_number: string;
  sms_url: string;
  sms_method: string;
  status_callback: string;
  status_callback_method: string;
}
const numbers: FakeNumber[] = [
  { sid: "PN00000000000000000000000000000001", phone_number: "+14155550199", sms_url: "https://demo.twilio.com/welcome/sms/reply", sms_method: "POST", status_callback: "", status_callback_method: "POST" },
  { sid: "PN00000000000000000000000000000002", phone_number: "+14155550198", sms_url: "", sms_method: "POST", status_callback: "https://app.example.com/calls", status_callback_method: "POST" },
];
const original = structuredClone(numbers);
const updates: Array<{ sid: string; form: Record<string, string> }> = [];

let fake: FakeCredentialedProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let accountSid: string;
let authToken: string;

beforeAll(async () => {
  const def = findConnector("twilio")!;
  const sidOf = () => def.declaration.credentials!.fields.find((f) => f.name === "account_sid")!.example!;
  fake = await startCredentialedProvider(def, {
    routes: [
      ({ method, path }) => {
        const match = method === "GET" ? /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/IncomingPhoneNumbers\.json$/.exec(path) : null;
        if (!match) return undefined;
        const [, sid] = match;
        if (sid !== sidOf()) return { status: 404, body: { code: 20404, message: "The requested resource was not found", status: 404 } };
        return { status: 200, body: { incoming_phone_numbers: numbers.map((n) => ({ ...n, account_sid: sid })), next_page_uri: null, page: 0, page_size: 1000 } };
      },
      ({ method, path, body }) => {
        const match = method === "POST" ? /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})\/IncomingPhoneNumbers\/(PN[0-9a-f]{32})\.json$/.exec(path) : null;
        if (!match) return undefined;
        const [, sid, numberSid] = match;
        const number = numbers.find((n) => n.sid === numberSid);
        if (sid !== sidOf() || !number) return { status: 404, body: { code: 20404, message: "The requested resource was not found", status: 404 } };
        const form = body as Record<string, string>;
        updates.push({ sid: numberSid, form });
        if ("SmsUrl" in form) number.sms_url = form.SmsUrl;
        if ("SmsMethod" in form) number.sms_method = form.SmsMethod;
        if ("StatusCallback" in form) number.status_callback = form.StatusCallback;
        if ("StatusCallbackMethod" in form) number.status_callback_method = form.StatusCallbackMethod;
        return { status: 200, body: { ...number, account_sid: sid } };
      },
    ],
  });
  accountSid = fake.fields.account_sid;
  authToken = fake.fields.auth_token;
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  const triggers = ["sms_received", "call_status_changed"].map((trigger) => ({ connector: "twilio", trigger }));
  await listTriggers(app, ada, triggers);

  // The end user's walk: auth-url → Continue → consent → the credentials form.
  accountId = (await connectWithCredentials(app, ada, findConnector("twilio")!, "alice", fake.fields)).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const twilioEvents = () => storedEvents(app, ada, "twilio");

/** What Twilio sends: form parameters signed with the account's Auth Token over the URL it calls (the twilio package's own signing). */
function post(url: string, params: Record<string, string>, opts: { token?: string; alter?: boolean; unsigned?: boolean } = {}) {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", "i-twilio-idempotency-token": randomUUID() };
  if (!opts.unsigned) headers["x-twilio-signature"] = twilio.getExpectedTwilioSignature(opts.token ?? authToken, url, params);
  const body = new URLSearchParams(opts.alter ? { ...params, Body: "altered" } : params).toString();
  return fetch(url, { method: "POST", headers, body });
}

const sms = () => ({ MessageSid: `SM${randomUUID().replaceAll("-", "")}`, AccountSid: accountSid, From: "+14155550100", To: "+14155550199", Body: "Hello ☃ & you", NumMedia: "0", SmsStatus: "received", ApiVersion: "2010-04-01" });

describe("a connected Twilio account with its triggers listed", () => {
  test("every number of the account points at the connection's own URL, for messages and call status", async () => {
    await app.app.subscriptions.runOnce(true);
    const [row] = await accountSubscriptions(app, ada, accountId);
    expect(row).toMatchObject({ status: "ACTIVE", providerId: accountSid, lastError: null });
    const base = `${app.url}/webhooks/${ada.deploymentId}/twilio?subscription=${row.id}`;
    for (const number of numbers) {
      expect(number).toMatchObject({ sms_url: `${base}&event=SmsUrl`, sms_method: "POST", status_callback: `${base}&event=StatusCallback`, status_callback_method: "POST" });
    }
  });

  test("a message and a call status signed with the account's Auth Token become its events, parameters as data; a retry is no second event", async () => {
    const message = sms();
    const response = await post(numbers[0].sms_url, message);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1 });
    const call = { CallSid: `CA${randomUUID().replaceAll("-", "")}`, AccountSid: accountSid, From: "+14155550100", To: "+14155550198", CallStatus: "completed", CallDuration: "42", Direction: "inbound", ApiVersion: "2010-04-01" };
    expect(await (await post(numbers[1].status_callback, call)).json()).toMatchObject({ recorded: 1 });
    const stored = await twilioEvents();
    expect(stored.map((e) => e.trigger).sort()).toEqual(["call_status_changed", "sms_received"]);
    expect(stored.every((e) => e.account === "alice")).toBe(true);
    expect(stored.find((e) => e.trigger === "sms_received")!.payload).toEqual(message);
    // Twilio re-sending the same request (same body) within the replay window is not a second event.
    expect(await (await post(numbers[0].sms_url, message)).json()).toMatchObject({ recorded: 0 });
    expect(await twilioEvents()).toHaveLength(2);
  });

  test("another account's token, an altered parameter, another URL or no signature is a 401 that stores nothing", async () => {
    const url = numbers[0].sms_url;
    const refused = [
      await post(url, sms(), { token: "0".repeat(32) }),
      await post(url, sms(), { alter: true }),
      await post(url, sms(), { unsigned: true }),
    ];
    // Signed for the message URL but sent as a call status: the URL is part of what is signed.
    const params = sms();
    refused.push(await fetch(numbers[0].status_callback, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": twilio.getExpectedTwilioSignature(authToken, url, params) }, body: new URLSearchParams(params).toString() }));
    for (const response of refused) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_signature" });
    }
    expect(await twilioEvents()).toHaveLength(2);
  });

  test("disconnecting puts back the URLs the numbers had", async () => {
    await disconnect(app, ada, accountId);
    expect(numbers.map(({ sid, sms_url, status_callback }) => ({ sid, sms_url, status_callback }))).toEqual(original.map(({ sid, sms_url, status_callback }) => ({ sid, sms_url, status_callback })));
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
