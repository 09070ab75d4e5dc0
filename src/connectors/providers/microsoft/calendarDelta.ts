/**
 * The calendar after a `missed` lifecycle notification (outlook.ts). Graph v1.0 has no delta over
 * `me/events` (the subscription's resource), only over a calendar view: a fixed window of dates,
 * `GET /me/calendarView/delta?startDateTime=…&endDateTime=…`, whose first round lists every event
 * of the window and whose `@odata.deltaLink` (both dates encoded in it) lists what changed since
 * (https://learn.microsoft.com/en-us/graph/api/event-delta,
 * https://learn.microsoft.com/en-us/graph/delta-query-events). So:
 *
 * - The window is fixed when the position is taken: from a day before to 365 days after. Events
 *   that lie wholly outside it are not listed, so their missed changes are not recovered.
 * - The position is taken when the subscription is made, by reading the first round through (the
 *   calendar as it is: nothing forwarded). A round longer than START_ROUNDS reads is kept with
 *   `initialSync`, and the next `missed` reads on through it, still forwarding nothing.
 * - A round does not say whether an event was created or changed: an event created after `since`
 *   (when the read that took the stored link began) is `created`; one created before is
 *   `updated` at its etag; one created since and modified more than MODIFIED_AFTER_MS later is both
 *   (its creation may have been notified, its change not). `@removed` is `deleted`.
 * - A calendar view lists each occurrence of a recurring series (type `occurrence` or `exception`,
 *   with `seriesMasterId`) where `me/events` notifications name the series master: an occurrence
 *   stands for its master, read once per read at `me/events/{id}` and keyed as a notification of
 *   the master is (changes.ts), so a series is forwarded once, not once per occurrence.
 * - A removed occurrence is listed under its own id without its series (Graph gives only `id` and
 *   `@removed`): it is forwarded as `event_deleted` of that id.
 * - A 410 (the delta link expired) takes a fresh position, window included: what changed in that
 *   gap is not forwarded. Without a position (calendar subscriptions made before this) the first
 *   `missed` takes it, likewise.
 */
import * as z from "zod";
import { GRAPH_VERSION } from "./graph.ts";
import { graphDedupeKey, occurredAt } from "./changes.ts";
import { deltaRound, parsePosition, readOnFrom } from "./delta.ts";
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import { asRecord, asString } from "../../json.ts";
import type { NormalizedEvent } from "../../types.ts";

/** The calendar's events (`me/events`): the resource read through a calendar view's delta. */
export const isCalendar = (resource: string) => /^\/?me\/events\/?$/i.test(resource);

const DAY_MS = 24 * 60 * 60 * 1000;
/** The window: events from a day before the position (today's, begun already) to a year after. */
const WINDOW_BEFORE_MS = DAY_MS;
const WINDOW_AFTER_MS = 365 * DAY_MS;
/** Reads of the first round at subscription creation (each up to delta.ts's page limit) before the rest is left to the next `missed`. */
const START_ROUNDS = 10;
/** An event created since the position and changed this much later: its change is forwarded too. */
const MODIFIED_AFTER_MS = 2000;

const positionSchema = z.object({
  deltaLink: z.url(),
  since: z.iso.datetime(),
  startDateTime: z.iso.datetime(),
  endDateTime: z.iso.datetime(),
  /** The first round (the calendar as it is) is not read through yet: its items are no changes. */
  initialSync: z.literal(true).optional(),
});
type Position = z.infer<typeof positionSchema>;

/** Reads the first round on from `link` (up to `rounds` reads), forwarding nothing: the position where it ends, or undefined without any link. */
async function syncThrough(fetchJson: ChangeReadContext["fetchJson"], link: string, position: Omit<Position, "deltaLink" | "initialSync">, rounds: number): Promise<string | undefined> {
  let next = link;
  for (let read = 0; read < rounds; read++) {
    const round = await deltaRound(fetchJson, next);
    if (!round.link) return undefined;
    if (round.complete) return JSON.stringify({ ...position, deltaLink: round.link } satisfies Position);
    next = round.link;
  }
  return JSON.stringify({ ...position, deltaLink: next, initialSync: true } satisfies Position);
}

/** The calendar's position now: the first round of a calendar view over the window around `now`, read through. */
function positionAt(fetchJson: ChangeReadContext["fetchJson"], now: Date): Promise<string | undefined> {
  const window = { since: now.toISOString(), startDateTime: new Date(now.getTime() - WINDOW_BEFORE_MS).toISOString(), endDateTime: new Date(now.getTime() + WINDOW_AFTER_MS).toISOString() };
  const query = new URLSearchParams({ startDateTime: window.startDateTime, endDateTime: window.endDateTime });
  return syncThrough(fetchJson, `${GRAPH_VERSION}/me/calendarView/delta?${query}`, window, START_ROUNDS);
}

/** Taken when the calendar subscription is made. */
export const startCalendarDelta = (ctx: ChangeStartContext): Promise<string | undefined> => positionAt(ctx.fetchJson, ctx.now);

/** The event as `me/events` has it now (a series master); undefined when gone. */
async function readEvent(ctx: ChangeReadContext, id: string): Promise<Record<string, unknown> | undefined> {
  try {
    return asRecord(await ctx.fetchJson(`${GRAPH_VERSION}/me/events/${encodeURIComponent(id)}`));
  } catch (error) {
    if (asRecord(error)?.status === 404) return undefined;
    throw error;
  }
}

/** The version a notification's `resourceData["@odata.etag"]` names: Graph's event etag is the changeKey, weak-quoted. */
function etagOf(event: Record<string, unknown>): string {
  const changeKey = asString(event.changeKey);
  return asString(event["@odata.etag"]) ?? (changeKey ? `W/"${changeKey}"` : (asString(event.lastModifiedDateTime) ?? ""));
}

export async function readMissedEvents(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor?: string }> {
  const position = parsePosition(positionSchema, ctx.cursor);
  if (!position) return { events: [], cursor: await positionAt(ctx.fetchJson, ctx.now) };
  if (position.initialSync) {
    const { deltaLink, initialSync: _syncing, ...window } = position;
    return { events: [], cursor: (await syncThrough(ctx.fetchJson, deltaLink, window, 1)) ?? ctx.cursor };
  }
  const round = await readOnFrom(ctx.fetchJson, position.deltaLink);
  if (!round) return { events: [], cursor: await positionAt(ctx.fetchJson, ctx.now) };
  const since = Date.parse(position.since);
  const events: NormalizedEvent[] = [];
  const keys = new Set<string>();
  const add = (changeType: string, id: string, version: string, data: Record<string, unknown>) => {
    const [trigger] = ctx.triggersFor(changeType);
    const dedupeKey = graphDedupeKey(id, changeType, version);
    if (!trigger || keys.has(dedupeKey)) return;
    keys.add(dedupeKey);
    events.push({ trigger, externalIds: [ctx.externalId], dedupeKey, occurredAt: occurredAt(data), data });
  };
  const masters = new Map<string, Record<string, unknown> | undefined>();
  for (const item of round.items) {
    const id = asString(item.id);
    if (!id) continue;
    if (item["@removed"] !== undefined) {
      // As a deleted event's notification forwards it: the id and the resource Graph names it by.
      add("deleted", id, "", { id, changeType: "deleted", resource: `Users/${ctx.externalId}/Events/${id}` });
      continue;
    }
    const masterId = asString(item.seriesMasterId);
    let event: Record<string, unknown> | undefined = item;
    if (masterId && item.type !== "seriesMaster") {
      if (!masters.has(masterId)) masters.set(masterId, await readEvent(ctx, masterId));
      event = masters.get(masterId);
    }
    const eventId = event && asString(event.id);
    if (!event || !eventId) continue;
    const created = Date.parse(asString(event.createdDateTime) ?? "");
    const modified = Date.parse(asString(event.lastModifiedDateTime) ?? "");
    // Created when the previous read began or before: listed by an earlier round (or the calendar as it was).
    const isNew = created > since;
    if (isNew) add("created", eventId, "", event);
    if (!isNew || modified - created > MODIFIED_AFTER_MS) add("updated", eventId, etagOf(event), event);
  }
  // A round cut short at a next link is the same round next time: `since` stays until it ends.
  const next: Position | undefined = round.link ? { ...position, deltaLink: round.link, since: round.complete ? ctx.now.toISOString() : position.since } : undefined;
  return { events, cursor: next ? JSON.stringify(next) : ctx.cursor };
}
