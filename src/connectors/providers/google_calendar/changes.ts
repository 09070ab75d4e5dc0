/**
 * Google Calendar's change reader. A channel's notification carries no event data, only
 * `X-Goog-Resource-State`: `sync` once, right after the channel is made, then `exists` on every
 * change (https://developers.google.com/calendar/api/guides/push). What changed is read with
 * events.list and the stored sync token (https://developers.google.com/calendar/api/guides/sync):
 * the position is a full read's `nextSyncToken`, taken when the channel is made (nothing before the
 * channel is forwarded); a 410 Gone means the token is no longer valid: a full read again from now.
 */
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import { asRecord, asString } from "../../json.ts";
import { readProviderDate } from "../../dates.ts";
import type { NormalizedEvent } from "../../types.ts";

const MAX_PAGES = 20;
/** An event whose `updated` is within this of its `created` is new (Calendar sets both on insert; they are not always equal). */
const NEW_WITHIN_MS = 2_000;

interface EventsPage {
  items?: Array<Record<string, unknown>>;
  nextPageToken?: string;
  nextSyncToken?: string;
}

const statusOf = (error: unknown) => asRecord(error)?.status;

async function list(ctx: Pick<ChangeReadContext, "fetchJson" | "resource">, syncToken: string | undefined): Promise<{ items: Array<Record<string, unknown>>; syncToken: string | undefined }> {
  const items: Array<Record<string, unknown>> = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ maxResults: "250", ...(syncToken ? { syncToken } : { showDeleted: "false" }), ...(pageToken ? { pageToken } : {}) });
    // The calendar the subscription watches ("primary", or a watched calendar's id).
    const answer = (await ctx.fetchJson(`/calendar/v3/calendars/${encodeURIComponent(ctx.resource || "primary")}/events?${query}`)) as EventsPage;
    items.push(...(answer.items ?? []));
    if (answer.nextSyncToken) return { items, syncToken: answer.nextSyncToken };
    pageToken = answer.nextPageToken;
    if (!pageToken) break;
  }
  return { items, syncToken };
}

function triggerOf(item: Record<string, unknown>): string {
  if (item.status === "cancelled") return "event_cancelled";
  const created = Date.parse(String(item.created ?? ""));
  const updated = Date.parse(String(item.updated ?? ""));
  return Number.isFinite(created) && Number.isFinite(updated) && updated - created <= NEW_WITHIN_MS ? "event_created" : "event_updated";
}

/**
 * The position when the channel is made: a full read's `nextSyncToken`, recorded with the channel. The
 * `sync` message cannot be relied on for it: Google sends it as the channel is made, and it may
 * arrive before the channel is recorded (then it names a channel not known yet and is dropped).
 */
export async function startCalendarChanges(ctx: ChangeStartContext): Promise<string | undefined> {
  return (await list(ctx, undefined)).syncToken;
}

export async function readCalendarChanges(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor?: string }> {
  const state = ctx.headers["x-goog-resource-state"];
  if (!ctx.cursor) {
    // The baseline, where the channel's start could not take it: where the calendar is now.
    return { events: [], cursor: (await list(ctx, undefined)).syncToken };
  }
  if (state === "sync") return { events: [] };
  let changed;
  try {
    changed = await list(ctx, ctx.cursor);
  } catch (error) {
    if (statusOf(error) === 410) return { events: [], cursor: (await list(ctx, undefined)).syncToken };
    throw error;
  }
  const events: NormalizedEvent[] = [];
  for (const item of changed.items) {
    const id = asString(item.id);
    if (!id) continue;
    const trigger = triggerOf(item);
    const version = asString(item.updated) ?? asString(item.etag) ?? "";
    events.push({
      trigger,
      externalIds: [ctx.externalId],
      dedupeKey: `${id}:${trigger}:${version}`,
      occurredAt: readProviderDate(item.updated),
      data: item,
    });
  }
  return { events, cursor: changed.syncToken };
}
