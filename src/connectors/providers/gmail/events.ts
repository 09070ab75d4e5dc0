/**
 * Gmail arrives as a Cloud Pub/Sub **push** (https://developers.google.com/gmail/api/guides/push),
 * not as a signed webhook, and in two steps:
 *
 * 1. Pub/Sub POSTs `{"message":{"data": base64('{"emailAddress":"…","historyId":"…"}'),
 *    "messageId":"…","publishTime":"…"},"subscription":"…"}` with
 *    `Authorization: Bearer <JWT>` — an OpenID Connect token Google signs with RS256
 *    (https://cloud.google.com/pubsub/docs/authenticate-push-subscriptions).
 * 2. The notification only says "this mailbox changed up to historyId N". The messages themselves
 *    come from `GET /gmail/v1/users/me/history?startHistoryId=<last seen>` with the account's token.
 *
 * Design, so that everything here stays pure and offline-testable:
 *
 * - Verification is Gmail's own `jwt` scheme (./pushToken.ts): the bearer JWT against Google's
 *   JWKS, the webhook secret being the push subscription's audience.
 * - `parse` decodes the notification (`decodePushNotification`) and returns no events but a
 *   `sync` notification routed by the lower-cased emailAddress.
 * - `readGmailHistory` (the connector's change reader, `changes.read`) reads history since the
 *   connection's stored position (the profile historyId at connect time: `startGmailHistory`, then
 *   each returned one) and turns it into events with the pure `historyToEvents`, enriching each
 *   with the message's headers.
 */
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import type { InboundRequest, InboundResult, NormalizedEvent } from "../../types.ts";
import { readProviderDate } from "../../dates.ts";
import { asRecord, asString, parseJsonObject } from "../../json.ts";
import { storableOptional, storableText } from "../../../text/storable.ts";

export interface GmailPushNotification {
  /** As Gmail wrote it; route by its lower-cased form. */
  emailAddress: string;
  historyId: string;
  /** Pub/Sub message id: stable across push retries. */
  messageId: string;
  publishTime: string | null;
  subscription: string | null;
}

/** Decodes a Pub/Sub push body carrying a Gmail notification; null when it is not one. */
export function decodePushNotification(rawBody: Buffer): GmailPushNotification | null {
  const envelope = parseJsonObject(rawBody);
  const message = asRecord(envelope?.message);
  if (!envelope || !message) return null;
  const encoded = asString(message.data);
  if (!encoded) return null;
  // Pub/Sub sends standard base64; tolerate base64url as well.
  const inner = parseJsonObject(Buffer.from(encoded, encoded.includes("-") || encoded.includes("_") ? "base64url" : "base64"));
  const emailAddress = asString(inner?.emailAddress);
  const historyId = asString(inner?.historyId);
  // Pub/Sub sends both spellings (messageId and message_id).
  const messageId = asString(message.messageId) ?? asString(message.message_id);
  if (!emailAddress || !historyId || !/^\d+$/.test(historyId) || !messageId) return null;
  return {
    // Routed by (a text column lookup): a NUL would fail the query on every redelivery.
    emailAddress: storableText(emailAddress),
    historyId,
    messageId,
    publishTime: asString(message.publishTime) ?? asString(message.publish_time) ?? null,
    subscription: asString(envelope.subscription) ?? null,
  };
}

export function parseGmailPush(req: InboundRequest): InboundResult {
  const notification = decodePushNotification(req.rawBody);
  if (!notification) return { kind: "events", events: [] };
  return {
    kind: "events",
    events: [],
    sync: {
      externalIds: [notification.emailAddress.toLowerCase()],
      cursor: notification.historyId,
      dedupeKey: notification.messageId,
      occurredAt: readProviderDate(notification.publishTime),
    },
  };
}

/** The part of users.history.list we read (https://developers.google.com/gmail/api/reference/rest/v1/users.history/list). */
export interface GmailHistoryResponse {
  history?: Array<{
    id: string;
    messagesAdded?: Array<{ message: { id: string; threadId?: string; labelIds?: string[] } }>;
  }>;
  nextPageToken?: string;
  historyId?: string;
}

/** The event data forwarded for email_sent / email_received. */
export interface GmailEmailData {
  emailAddress: string;
  messageId: string;
  threadId: string | null;
  labelIds: string[];
  historyId: string;
  subject: string | null;
  from: string | null;
  to: string | null;
  date: string | null;
  snippet: string | null;
}

/**
 * messagesAdded with label SENT → email_sent, INBOX → email_received (a mail to oneself is both).
 * Drafts (DRAFT, no SENT) and spam never carry either label. Dedupe key: message id + trigger, so a
 * redelivered notification or an overlapping history window yields the same keys.
 */
export function historyToEvents(history: GmailHistoryResponse, ownEmail: string, occurredAt?: Date): NormalizedEvent[] {
  const email = ownEmail.toLowerCase();
  const seen = new Set<string>();
  const events: NormalizedEvent[] = [];
  for (const record of history.history ?? []) {
    for (const added of record.messagesAdded ?? []) {
      const message = added.message;
      if (!message?.id) continue;
      const labels = message.labelIds ?? [];
      const triggers = [
        ...(labels.includes("SENT") ? ["email_sent"] : []),
        ...(labels.includes("INBOX") ? ["email_received"] : []),
      ];
      for (const trigger of triggers) {
        const dedupeKey = `${message.id}:${trigger}`;
        if (seen.has(dedupeKey)) continue;
        seen.add(dedupeKey);
        const data: GmailEmailData = {
          emailAddress: email,
          messageId: message.id,
          threadId: message.threadId ?? null,
          labelIds: labels,
          historyId: record.id,
          subject: null,
          from: null,
          to: null,
          date: null,
          snippet: null,
        };
        events.push({ trigger, externalIds: [email], dedupeKey, occurredAt, data: { ...data } });
      }
    }
  }
  return events;
}

/** Fills subject/from/to/date/snippet from users.messages.get?format=metadata; occurredAt from internalDate. */
export function withMessageMetadata(event: NormalizedEvent, message: unknown): NormalizedEvent {
  const m = asRecord(message);
  if (!m) return event;
  const headers = asRecord(m.payload)?.headers;
  const header = (name: string) => {
    if (!Array.isArray(headers)) return null;
    const found = headers.map(asRecord).find((h) => asString(h?.name)?.toLowerCase() === name.toLowerCase());
    // Anyone who can mail the account writes these: a NUL in a subject must not stall the mailbox.
    return storableOptional(asString(found?.value)) ?? null;
  };
  return {
    ...event,
    // Gmail's internalDate: epoch milliseconds, as a string.
    occurredAt: readProviderDate(asString(m.internalDate), { epoch: "milliseconds" }) ?? event.occurredAt,
    data: {
      ...event.data,
      subject: header("Subject"),
      from: header("From"),
      to: header("To"),
      date: header("Date"),
      snippet: storableOptional(asString(m.snippet)) ?? null,
    },
  };
}

const MAX_HISTORY_PAGES = 20;

function statusOf(error: unknown): number | undefined {
  const status = asRecord(error)?.status;
  return typeof status === "number" ? status : undefined;
}

/** The mailbox's position now: where reading starts when there is no (usable) position. */
async function currentHistoryId(ctx: Pick<ChangeStartContext, "fetchJson">): Promise<string> {
  const profile = asRecord(await ctx.fetchJson("/gmail/v1/users/me/profile"));
  return asString(profile?.historyId) ?? "";
}

/** `changes.start` for Gmail: the mailbox's historyId when the account connects. */
export async function startGmailHistory(ctx: ChangeStartContext): Promise<string | undefined> {
  return (await currentHistoryId(ctx)) || undefined;
}

/**
 * `changes.read` for Gmail. Errors from `fetchJson` propagate (the caller answers non-2xx
 * and Pub/Sub redelivers), except a 404 on history: Gmail's way of saying the stored
 * startHistoryId is too old, after which the only sane move is to resume from the notification.
 */
export async function readGmailHistory(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor: string }> {
  const target = ctx.notification?.cursor;
  const start = ctx.cursor;
  if (!start || !/^\d+$/.test(start)) {
    // No baseline yet: start from the notification, or (polling) from where the mailbox is now.
    return { events: [], cursor: target ?? (await currentHistoryId(ctx)) };
  }
  // A late or duplicate notification for a position we already passed.
  if (target !== undefined && BigInt(target) <= BigInt(start)) {
    return { events: [], cursor: BigInt(start) > BigInt(target) ? start : target };
  }

  const records: NonNullable<GmailHistoryResponse["history"]> = [];
  let latest = target ?? start;
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
    const query = new URLSearchParams({ startHistoryId: start, historyTypes: "messageAdded" });
    if (pageToken) query.set("pageToken", pageToken);
    let response: GmailHistoryResponse;
    try {
      response = (await ctx.fetchJson(`/gmail/v1/users/me/history?${query}`)) as GmailHistoryResponse;
    } catch (error) {
      if (statusOf(error) === 404) return { events: [], cursor: target ?? (await currentHistoryId(ctx)) };
      throw error;
    }
    records.push(...(response.history ?? []));
    if (response.historyId && /^\d+$/.test(response.historyId) && BigInt(response.historyId) > BigInt(latest)) {
      latest = response.historyId;
    }
    pageToken = response.nextPageToken;
    if (!pageToken) break;
  }
  if (pageToken && records.length > 0) {
    // Stopped early: resume after the last record read, not at the mailbox's latest position.
    latest = records[records.length - 1].id;
  }

  const messages = new Map<string, unknown>();
  const events: NormalizedEvent[] = [];
  for (const event of historyToEvents({ history: records }, ctx.externalId, ctx.notification?.occurredAt)) {
    const id = String(event.data.messageId);
    if (!messages.has(id)) {
      try {
        messages.set(
          id,
          await ctx.fetchJson(
            `/gmail/v1/users/me/messages/${encodeURIComponent(id)}?format=metadata&metadataHeaders=Subject&metadataHeaders=From&metadataHeaders=To&metadataHeaders=Date`,
          ),
        );
      } catch (error) {
        // Deleted between the change and now: forward what history told us.
        if (statusOf(error) !== 404) throw error;
        messages.set(id, undefined);
      }
    }
    events.push(withMessageMetadata(event, messages.get(id)));
  }
  return { events, cursor: latest };
}
