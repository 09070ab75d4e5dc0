/**
 * Slack Events API (https://api.slack.com/authentication/verifying-requests-from-slack):
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + X-Slack-Request-Timestamp + ":" + raw body)>`.
 * Requests whose timestamp is more than 5 minutes from now are rejected (replay protection) before
 * the signature is even computed.
 *
 * Bodies: `url_verification` → echo `challenge`; `event_callback` with event.type `message` and no
 * subtype → message_posted (edits, joins, bot messages all carry a subtype); `reaction_added` →
 * reaction_added. Routing: event.user, then every authorizations[].user_id (the users whose
 * installation the event was delivered for). Dedupe: the envelope's event_id, which Slack keeps
 * on retries (X-Slack-Retry-Num).
 */
import type { InboundRequest, InboundResult, NormalizedEvent, VerifyResult } from "../types.ts";
import { hmacSha256Hex, safeEqual } from "../signatures.ts";
import { asRecord, asString, parseJsonObject } from "../json.ts";

export const SLACK_TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

export function verifySlackRequest(req: InboundRequest, secret: string, now: Date): VerifyResult {
  if (!secret) return { ok: false, reason: "no signing secret configured" };
  const timestamp = req.headers["x-slack-request-timestamp"];
  const signature = req.headers["x-slack-signature"];
  if (!timestamp || !signature) return { ok: false, reason: "missing signature headers" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "malformed timestamp" };
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp));
  if (skew > SLACK_TIMESTAMP_TOLERANCE_SECONDS) return { ok: false, reason: "timestamp outside the 5-minute window" };
  const match = /^v0=([0-9a-fA-F]{64})$/.exec(signature.trim());
  if (!match) return { ok: false, reason: "malformed signature header" };
  const expected = hmacSha256Hex(secret, `v0:${timestamp}:`, req.rawBody);
  return safeEqual(match[1].toLowerCase(), expected) ? { ok: true } : { ok: false, reason: "signature mismatch" };
}

/** Slack `ts` values are "<unix seconds>.<micro>" strings. */
function slackTsToDate(value: unknown): Date | undefined {
  const s = asString(value);
  if (!s || !/^\d+(\.\d+)?$/.test(s)) return undefined;
  return new Date(Math.round(Number(s) * 1000));
}

function messageData(envelope: Record<string, unknown>, event: Record<string, unknown>) {
  return {
    teamId: asString(envelope.team_id) ?? null,
    channel: asString(event.channel) ?? null,
    channelType: asString(event.channel_type) ?? null,
    user: asString(event.user) ?? null,
    text: asString(event.text) ?? "",
    ts: asString(event.ts) ?? null,
    threadTs: asString(event.thread_ts) ?? null,
    eventId: asString(envelope.event_id) ?? null,
  };
}

function reactionData(envelope: Record<string, unknown>, event: Record<string, unknown>) {
  const item = asRecord(event.item) ?? {};
  return {
    teamId: asString(envelope.team_id) ?? null,
    user: asString(event.user) ?? null,
    reaction: asString(event.reaction) ?? "",
    itemUser: asString(event.item_user) ?? null,
    item: {
      type: asString(item.type) ?? null,
      channel: asString(item.channel) ?? null,
      ts: asString(item.ts) ?? null,
    },
    eventTs: asString(event.event_ts) ?? null,
    eventId: asString(envelope.event_id) ?? null,
  };
}

export function parseSlackRequest(req: InboundRequest): InboundResult {
  const envelope = parseJsonObject(req.rawBody);
  if (!envelope) return { kind: "events", events: [] };

  if (envelope.type === "url_verification") {
    // Slack accepts the challenge echoed as text/plain.
    return { kind: "challenge", status: 200, contentType: "text/plain", body: asString(envelope.challenge) ?? "" };
  }
  if (envelope.type !== "event_callback") return { kind: "events", events: [] };

  const event = asRecord(envelope.event);
  if (!event) return { kind: "events", events: [] };
  let trigger: string | undefined;
  let data: Record<string, unknown> | undefined;
  if (event.type === "message" && event.subtype === undefined) {
    trigger = "message_posted";
    data = messageData(envelope, event);
  } else if (event.type === "reaction_added") {
    trigger = "reaction_added";
    data = reactionData(envelope, event);
  }
  if (!trigger || !data) return { kind: "events", events: [] };

  const authorizations = Array.isArray(envelope.authorizations) ? envelope.authorizations : [];
  const externalIds = [
    ...new Set(
      [asString(event.user), ...authorizations.map((a) => asString(asRecord(a)?.user_id))].filter(
        (id): id is string => typeof id === "string" && id.length > 0,
      ),
    ),
  ];
  const eventTime = typeof envelope.event_time === "number" ? new Date(envelope.event_time * 1000) : undefined;
  const normalized: NormalizedEvent = {
    trigger,
    externalIds,
    dedupeKey: asString(envelope.event_id) ?? `${trigger}:${asString(event.event_ts) ?? asString(event.ts) ?? ""}`,
    occurredAt: eventTime ?? slackTsToDate(event.event_ts) ?? slackTsToDate(event.ts) ?? new Date(),
    data,
  };
  return { kind: "events", events: [normalized] };
}
