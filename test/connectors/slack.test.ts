import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { TokenResponseError } from "../../src/connectors/tokenResponse.ts";
import type { InboundRequest } from "../../src/connectors/types.ts";
import { slackEvent, slackMessageEvent, slackReactionEvent, slackUrlVerification } from "../helpers/fakeProviders/index.ts";

const slack = findConnector("slack")!;
const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5";
const now = new Date("2026-01-01T12:00:00Z");
const nowSeconds = now.getTime() / 1000;

function inbound(signed: { headers: Record<string, string>; body: string }): InboundRequest {
  return { headers: signed.headers, rawBody: Buffer.from(signed.body) };
}

describe("slack request verification", () => {
  it("accepts Slack's documented example signature", () => {
    // The worked example from api.slack.com/authentication/verifying-requests-from-slack.
    const body =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    const req: InboundRequest = {
      headers: {
        "x-slack-request-timestamp": "1531420618",
        "x-slack-signature": "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
      },
      rawBody: Buffer.from(body),
    };
    expect(slack.inbound.verify(req, signingSecret, new Date(1531420618 * 1000))).toEqual({ ok: true });
  });

  it("accepts a fresh signed event and rejects tampering and a wrong secret", () => {
    const signed = slackEvent(slackMessageEvent({ text: "hi" }), signingSecret, { timestamp: now });
    expect(slack.inbound.verify(inbound(signed), signingSecret, now)).toEqual({ ok: true });
    expect(slack.inbound.verify(inbound({ ...signed, body: signed.body.replace('"hi"', '"ho"') }), signingSecret, now).ok).toBe(false);
    expect(slack.inbound.verify(inbound(signed), "not-the-secret", now).ok).toBe(false);
  });

  it("enforces the 5-minute timestamp window in both directions", () => {
    for (const [offset, ok] of [
      [-299, true],
      [299, true],
      [-301, false],
      [301, false],
      [-3600, false],
    ] as const) {
      const signed = slackEvent(slackMessageEvent(), signingSecret, { timestamp: nowSeconds + offset });
      expect(slack.inbound.verify(inbound(signed), signingSecret, now).ok, `offset ${offset}`).toBe(ok);
    }
  });

  it("rejects a replay whose timestamp was changed to look fresh (the timestamp is signed)", () => {
    const old = slackEvent(slackMessageEvent(), signingSecret, { timestamp: nowSeconds - 3600 });
    const replay = inbound({ ...old, headers: { ...old.headers, "x-slack-request-timestamp": String(nowSeconds) } });
    expect(slack.inbound.verify(replay, signingSecret, now)).toEqual({ ok: false, reason: "signature mismatch" });
  });

  it("rejects missing or malformed headers", () => {
    const signed = slackEvent(slackMessageEvent(), signingSecret, { timestamp: now });
    const variants: Array<Record<string, string | undefined>> = [
      { ...signed.headers, "x-slack-signature": undefined },
      { ...signed.headers, "x-slack-request-timestamp": undefined },
      { ...signed.headers, "x-slack-request-timestamp": "soon" },
      { ...signed.headers, "x-slack-signature": signed.headers["x-slack-signature"].replace("v0=", "v1=") },
    ];
    for (const headers of variants) {
      expect(slack.inbound.verify({ headers, rawBody: Buffer.from(signed.body) }, signingSecret, now).ok).toBe(false);
    }
  });
});

describe("slack event normalization", () => {
  it("answers url_verification with the challenge, after the signature check", () => {
    const req = inbound(slackEvent(slackUrlVerification("abc123challenge"), signingSecret));
    expect(slack.inbound.handshake(req, signingSecret, "before_verify")).toBeUndefined();
    expect(slack.inbound.handshake(req, signingSecret, "after_verify")).toMatchObject({ status: 200, contentType: "text/plain; charset=utf-8", body: "abc123challenge" });
    expect(slack.inbound.parse(req)).toEqual({ kind: "events", events: [] });
  });

  it("maps a plain message to message_posted, routed by author and authorized users, deduped by event_id", () => {
    const payload = slackMessageEvent({
      userId: "U111",
      authorizedUserIds: ["U222", "U111"],
      text: "Deploy is green",
      channel: "C999",
      ts: "1767268800.000100",
      eventId: "Ev08MFMKH6",
      eventTime: 1767268800,
    });
    const result = slack.inbound.parse(inbound(slackEvent(payload, signingSecret)));
    expect(result.kind).toBe("events");
    if (result.kind !== "events") return;
    expect(result.events).toEqual([
      {
        trigger: "message_posted",
        externalIds: ["U111", "U222"],
        dedupeKey: "Ev08MFMKH6",
        occurredAt: new Date(1767268800 * 1000),
        data: {
          teamId: "T0001ABCD",
          channel: "C999",
          channelType: "channel",
          user: "U111",
          text: "Deploy is green",
          ts: "1767268800.000100",
          threadTs: null,
          eventId: "Ev08MFMKH6",
        },
      },
    ]);
  });

  it("keeps the dedupe key on Slack retries", () => {
    const payload = slackMessageEvent({ eventId: "EvRETRY1" });
    const first = slack.inbound.parse(inbound(slackEvent(payload, signingSecret)));
    const retry = slack.inbound.parse(inbound(slackEvent(payload, signingSecret, { retryNum: 1 })));
    expect(first.kind === "events" && first.events[0].dedupeKey).toBe("EvRETRY1");
    expect(retry.kind === "events" && retry.events[0].dedupeKey).toBe("EvRETRY1");
  });

  it("ignores messages with a subtype (edits, joins, bot messages) and unmapped events", () => {
    for (const payload of [
      slackMessageEvent({ subtype: "message_changed" }),
      slackMessageEvent({ subtype: "channel_join" }),
      slackMessageEvent({ subtype: "bot_message" }),
      { type: "event_callback", event_id: "Ev1", event: { type: "no_such_event_type", user: "U1" } },
      { type: "app_rate_limited", minute_rate_limited: 1518467820 },
    ]) {
      expect(slack.inbound.parse(inbound(slackEvent(payload, signingSecret)))).toEqual({ kind: "events", events: [] });
    }
  });

  it("maps reaction_added", () => {
    const payload = slackReactionEvent({ userId: "U333", reaction: "tada", itemUserId: "U444", eventId: "EvREACT" });
    const result = slack.inbound.parse(inbound(slackEvent(payload, signingSecret)));
    expect(result.kind === "events" && result.events[0]).toMatchObject({
      trigger: "reaction_added",
      externalIds: ["U333"],
      dedupeKey: "EvREACT",
      data: { user: "U333", reaction: "tada", itemUser: "U444", item: { type: "message", channel: "C024BE91L" } },
    });
  });
});

describe("slack token responses", () => {
  it("reads the user token from authed_user of an oauth.v2.access answer", () => {
    const token = slack.oauth.readTokenResponse({
      ok: true,
      app_id: "A0KRD7HC3",
      authed_user: { id: "U1234", scope: "channels:history,reactions:read", access_token: "xoxp-1234", token_type: "user" },
      team: { id: "T9TK3CUKW", name: "Slack Softball Team" },
      enterprise: null,
      is_enterprise_install: false,
    });
    expect(token).toMatchObject({ accessToken: "xoxp-1234", scopes: ["channels:history", "reactions:read"] });
    expect(token.refreshToken).toBeUndefined();
  });

  it("reads a rotated token from the top level of a refresh answer", () => {
    const token = slack.oauth.readTokenResponse({
      ok: true,
      access_token: "xoxe.xoxp-new",
      token_type: "user",
      scope: "channels:history",
      refresh_token: "xoxe-1-new",
      expires_in: 43200,
    });
    expect(token).toMatchObject({ accessToken: "xoxe.xoxp-new", refreshToken: "xoxe-1-new", expiresIn: 43200 });
  });

  it("throws on ok:false", () => {
    expect(() => slack.oauth.readTokenResponse({ ok: false, error: "invalid_code" })).toThrow(TokenResponseError);
  });

  it("reads the identity from the token response without a network call", async () => {
    const identity = await slack.readIdentity({
      now: new Date(),
      accessToken: "xoxp-1234",
      token: { ok: true, authed_user: { id: "U1234", access_token: "xoxp-1234" }, team: { id: "T9", name: "Softball" } },
      fetchJson: () => Promise.reject(new Error("no network expected")),
      apiUrl: "https://slack.com/api",
    });
    expect(identity).toMatchObject({ externalId: "U1234", metadata: { teamId: "T9", teamName: "Softball" } });
  });
});

// Keep the signature scheme honest: compute one by hand the way Slack's docs describe it.
it("slackEvent signs v0:{timestamp}:{body}", () => {
  const signed = slackEvent({ a: 1 }, "s", { timestamp: 1700000000 });
  const expected = createHmac("sha256", "s").update('v0:1700000000:{"a":1}').digest("hex");
  expect(signed.headers["x-slack-signature"]).toBe(`v0=${expected}`);
});
