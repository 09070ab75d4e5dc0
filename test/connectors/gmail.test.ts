import { createHmac, createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import {
  decodePushNotification,
  historyToEvents,
  type GmailHistoryResponse,
  readGmailHistory,
} from "../../src/connectors/providers/gmail/events.ts";
import type { ChangeReadContext } from "../../src/connectors/changes.ts";
import type { InboundRequest, JsonWebKeySet, SyncNotification } from "../../src/connectors/types.ts";
import { gmailPush } from "../helpers/fakeProviders/index.ts";

const gmail = findConnector("gmail")!;
const audience = "switchyard-gmail-push-7f3a";
const serviceAccount = "gmail-push@project.iam.gserviceaccount.com";
const now = new Date("2026-01-01T12:00:00Z");
const nowSeconds = now.getTime() / 1000;

// A local stand-in for Google's signing key and its JWKS.
function makeKey(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" } as JsonWebKeySet["keys"][number] };
}
const googleKey = makeKey("google-key-1");
const otherKey = makeKey("google-key-1"); // same kid, different key: a forgery
const jwks: JsonWebKeySet = { keys: [googleKey.jwk] };

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function sign(claims: Record<string, unknown>, key: { kid: string; privateKey: KeyObject } = googleKey, header: Record<string, unknown> = {}) {
  const input = `${b64url({ alg: "RS256", kid: key.kid, typ: "JWT", ...header })}.${b64url(claims)}`;
  return `${input}.${createSign("RSA-SHA256").update(input).sign(key.privateKey).toString("base64url")}`;
}

function claims(overrides: Record<string, unknown> = {}) {
  return {
    aud: audience,
    azp: "113774264463038321964",
    email: serviceAccount,
    email_verified: true,
    exp: nowSeconds + 3600,
    iat: nowSeconds,
    iss: "https://accounts.google.com",
    sub: "113774264463038321964",
    ...overrides,
  };
}

function push(jwt: string, notification = { emailAddress: "Alice@Example.com", historyId: "9876543" }): InboundRequest {
  const signed = gmailPush(notification, jwt, { messageId: "2070443601311540", publishTime: new Date("2026-01-01T11:59:59Z") });
  return { headers: signed.headers, rawBody: Buffer.from(signed.body) };
}

describe("gmail push verification (Pub/Sub OIDC token, RS256 against the JWKS)", () => {
  it("accepts a Google-signed token for our audience", () => {
    expect(gmail.inbound.verify(push(sign(claims())), audience, now, { jwks })).toEqual({ ok: true });
  });

  it("rejects a token for another audience, another issuer, or an expired / future token", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ aud: "https://someone-else.example.com/push" }, "token audience mismatch"],
      [{ iss: "https://evil.example.com" }, "token not issued by the provider"],
      [{ exp: nowSeconds - 301, iat: nowSeconds - 3901 }, "token expired"],
      [{ iat: nowSeconds + 600, exp: nowSeconds + 4200 }, "token issued in the future"],
      [{ exp: undefined }, "token has no expiry"],
    ];
    for (const [override, reason] of cases) {
      expect(gmail.inbound.verify(push(sign(claims(override))), audience, now, { jwks })).toEqual({ ok: false, reason });
    }
  });

  it("tolerates 5 minutes of clock skew", () => {
    expect(gmail.inbound.verify(push(sign(claims({ exp: nowSeconds - 200 }))), audience, now, { jwks })).toEqual({ ok: true });
  });

  it("rejects a forged signature, tampered claims and a missing or non-bearer Authorization", () => {
    expect(gmail.inbound.verify(push(sign(claims(), otherKey)), audience, now, { jwks })).toEqual({ ok: false, reason: "token signature mismatch" });

    const [h, , s] = sign(claims()).split(".");
    const tampered = `${h}.${b64url(claims({ aud: audience, email: "attacker@evil.example.com" }))}.${s}`;
    expect(gmail.inbound.verify(push(tampered), audience, now, { jwks }).ok).toBe(false);

    const req = push(sign(claims()));
    expect(gmail.inbound.verify({ ...req, headers: { ...req.headers, authorization: undefined } }, audience, now, { jwks })).toEqual({
      ok: false,
      reason: "missing bearer token",
    });
    expect(gmail.inbound.verify({ ...req, headers: { ...req.headers, authorization: "Basic abc" } }, audience, now, { jwks }).ok).toBe(false);
  });

  it("refuses alg none and HS256 signed with the public key (algorithm confusion)", () => {
    const none = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims())}.`;
    expect(gmail.inbound.verify(push(none), audience, now, { jwks })).toEqual({ ok: false, reason: "unsupported token algorithm" });

    const input = `${b64url({ alg: "HS256", kid: "google-key-1", typ: "JWT" })}.${b64url(claims())}`;
    const hs = `${input}.${createHmac("sha256", JSON.stringify(googleKey.jwk)).update(input).digest("base64url")}`;
    expect(gmail.inbound.verify(push(hs), audience, now, { jwks })).toEqual({ ok: false, reason: "unsupported token algorithm" });
  });

  it("asks for a JWKS refresh when the key id is unknown or no keys were given", () => {
    const rotated = makeKey("google-key-2");
    expect(gmail.inbound.verify(push(sign(claims(), rotated)), audience, now, { jwks })).toEqual({
      ok: false,
      reason: "unknown signing key",
      refreshKeys: true,
    });
    expect(gmail.inbound.verify(push(sign(claims())), audience, now)).toMatchObject({ ok: false, refreshKeys: true });
    expect(gmail.inbound.verify(push(sign(claims(), rotated)), audience, now, { jwks: { keys: [googleKey.jwk, rotated.jwk] } })).toEqual({ ok: true });
  });

  it("optionally pins the push service account with `<audience>|<email>`", () => {
    const pinned = `${audience}|${serviceAccount}`;
    expect(gmail.inbound.verify(push(sign(claims())), pinned, now, { jwks })).toEqual({ ok: true });
    expect(gmail.inbound.verify(push(sign(claims({ email: "other@project.iam.gserviceaccount.com" }))), pinned, now, { jwks }).ok).toBe(false);
    expect(gmail.inbound.verify(push(sign(claims({ email_verified: false }))), pinned, now, { jwks }).ok).toBe(false);
  });

  it("refuses everything without a configured audience", () => {
    expect(gmail.inbound.verify(push(sign(claims({ aud: "" }))), "", now, { jwks }).ok).toBe(false);
  });
});

describe("gmail push notification", () => {
  it("decodes the Pub/Sub envelope", () => {
    const req = push(sign(claims()));
    expect(decodePushNotification(req.rawBody)).toEqual({
      emailAddress: "Alice@Example.com",
      historyId: "9876543",
      messageId: "2070443601311540",
      publishTime: "2026-01-01T11:59:59.000Z",
      subscription: "projects/switchyard-test/subscriptions/gmail-push",
    });
  });

  it("decodes Google's documented example body (standard base64 data, historyId as a number)", () => {
    const body = JSON.stringify({
      message: {
        data: "eyJlbWFpbEFkZHJlc3MiOiAidXNlckBleGFtcGxlLmNvbSIsICJoaXN0b3J5SWQiOiAiMTIzNDU2Nzg5MCJ9",
        messageId: "2070443601311540",
        publishTime: "2021-02-26T19:13:55.749Z",
      },
      subscription: "projects/myproject/subscriptions/mysubscription",
    });
    expect(decodePushNotification(Buffer.from(body))).toMatchObject({ emailAddress: "user@example.com", historyId: "1234567890" });
  });

  it("rejects bodies that are not Gmail notifications", () => {
    for (const body of ["", "[]", "{}", '{"message":{}}', JSON.stringify({ message: { data: Buffer.from("{}").toString("base64"), messageId: "1" } })]) {
      expect(decodePushNotification(Buffer.from(body))).toBeNull();
    }
  });

  it("parses into a sync notification routed by the lower-cased address and deduped by the Pub/Sub message id", () => {
    const result = gmail.inbound.parse(push(sign(claims())));
    expect(result).toEqual({
      kind: "events",
      events: [],
      sync: {
        externalIds: ["alice@example.com"],
        cursor: "9876543",
        dedupeKey: "2070443601311540",
        occurredAt: new Date("2026-01-01T11:59:59Z"),
      },
    });
  });

  it("leaves the time out when the publish time cannot be read: the change reader's now stands in", () => {
    const data = Buffer.from(JSON.stringify({ emailAddress: "user@example.com", historyId: 5 })).toString("base64");
    for (const publishTime of [undefined, "yesterday", "99999-01-01T00:00:00Z"]) {
      const body = JSON.stringify({ message: { data, messageId: "7", publishTime }, subscription: "projects/p/subscriptions/s" });
      const result = gmail.inbound.parse({ headers: {}, rawBody: Buffer.from(body) });
      expect(result.sync).toEqual({ externalIds: ["user@example.com"], cursor: "5", dedupeKey: "7" });
    }
  });
});

const history: GmailHistoryResponse = {
  history: [
    { id: "100", messagesAdded: [{ message: { id: "m1", threadId: "t1", labelIds: ["INBOX", "UNREAD"] } }] },
    { id: "101", messagesAdded: [{ message: { id: "m2", threadId: "t1", labelIds: ["SENT"] } }] },
    { id: "102", messagesAdded: [{ message: { id: "m3", threadId: "t3", labelIds: ["DRAFT"] } }] },
    { id: "103", messagesAdded: [{ message: { id: "m4", threadId: "t4", labelIds: ["SENT", "INBOX"] } }] },
    // the same message again (overlapping windows) must not produce a second event
    { id: "104", messagesAdded: [{ message: { id: "m1", threadId: "t1", labelIds: ["INBOX", "UNREAD"] } }] },
  ],
  historyId: "104",
};

describe("historyToEvents", () => {
  it("maps INBOX to email_received and SENT to email_sent, ignores drafts, dedupes by message and trigger", () => {
    const events = historyToEvents(history, "Alice@Example.com", now);
    expect(events.map((e) => [e.trigger, e.dedupeKey])).toEqual([
      ["email_received", "m1:email_received"],
      ["email_sent", "m2:email_sent"],
      ["email_sent", "m4:email_sent"],
      ["email_received", "m4:email_received"],
    ]);
    expect(events[0]).toMatchObject({
      externalIds: ["alice@example.com"],
      occurredAt: now,
      data: { emailAddress: "alice@example.com", messageId: "m1", threadId: "t1", labelIds: ["INBOX", "UNREAD"], historyId: "100" },
    });
  });

  it("handles an empty history (Gmail omits the field)", () => {
    expect(historyToEvents({ historyId: "5" }, "a@b.c")).toEqual([]);
  });
});

describe("readGmailHistory", () => {
  const notification: SyncNotification = { externalIds: ["alice@example.com"], cursor: "104", dedupeKey: "p1", occurredAt: now };

  function context(responses: Record<string, unknown>, cursor: string | undefined, calls: string[] = []): ChangeReadContext {
    return {
      now,
      externalId: "alice@example.com",
      resource: "",
      cursor,
      headers: {},
      item: {},
      notification,
      providerId: "",
      triggersFor: () => [],
      fetchJson: async (path: string) => {
        calls.push(path);
        const key = Object.keys(responses).find((k) => path.startsWith(k));
        const value = key === undefined ? undefined : responses[key];
        if (value === undefined || value instanceof Error) throw value ?? Object.assign(new Error("404"), { status: 404 });
        return value;
      },
    };
  }

  it("reads history since the stored cursor, follows pages, and enriches with message headers", async () => {
    const calls: string[] = [];
    const result = await readGmailHistory(
      context(
        {
          "/gmail/v1/users/me/history?startHistoryId=99&historyTypes=messageAdded&pageToken=p2": { history: history.history!.slice(1, 2), historyId: "104" },
          "/gmail/v1/users/me/history?startHistoryId=99": { history: history.history!.slice(0, 1), nextPageToken: "p2", historyId: "104" },
          "/gmail/v1/users/me/messages/m1": {
            id: "m1",
            internalDate: "1767261600000",
            snippet: "Hi Alice",
            payload: { headers: [{ name: "Subject", value: "Hello" }, { name: "From", value: "bob@example.org" }, { name: "To", value: "alice@example.com" }] },
          },
          // m2 was deleted since: 404, forwarded without headers
        },
        "99",
        calls,
      ),
    );
    expect(result.cursor).toBe("104");
    expect(result.events.map((e) => e.trigger)).toEqual(["email_received", "email_sent"]);
    expect(result.events[0]).toMatchObject({
      occurredAt: new Date(1767261600000),
      data: { subject: "Hello", from: "bob@example.org", to: "alice@example.com", snippet: "Hi Alice", date: null },
    });
    expect(result.events[1].data).toMatchObject({ messageId: "m2", subject: null });
    expect(calls[0]).toBe("/gmail/v1/users/me/history?startHistoryId=99&historyTypes=messageAdded");
  });

  it("without a stored cursor, only sets the baseline", async () => {
    const calls: string[] = [];
    expect(await readGmailHistory(context({}, undefined, calls))).toEqual({ events: [], cursor: "104" });
    expect(calls).toEqual([]);
  });

  it("ignores a late notification for a position already passed", async () => {
    expect(await readGmailHistory(context({}, "200"))).toEqual({ events: [], cursor: "200" });
  });

  it("resumes from the notification when the stored cursor is too old (history 404)", async () => {
    expect(await readGmailHistory(context({}, "1"))).toEqual({ events: [], cursor: "104" });
  });

  it("lets other API failures propagate so the push is retried", async () => {
    const boom = Object.assign(new Error("500"), { status: 500 });
    await expect(readGmailHistory(context({ "/gmail/v1/users/me/history": boom }, "99"))).rejects.toBe(boom);
  });
});

describe("gmail identity", () => {
  it("uses the lower-cased profile address and the profile historyId as the first cursor", async () => {
    const identity = await gmail.readIdentity({
      now: new Date(),
      accessToken: "ya29.x",
      token: {},
      apiUrl: "https://gmail.googleapis.com",
      fetchJson: async (path) => {
        expect(path).toBe("/gmail/v1/users/me/profile");
        return { emailAddress: "Alice@Example.com", messagesTotal: 10, threadsTotal: 8, historyId: "9876500" };
      },
    });
    expect(identity).toEqual({ externalId: "alice@example.com", displayName: "Alice@Example.com", metadata: { emailAddress: "Alice@Example.com" }, cursor: "9876500" });
  });
});
