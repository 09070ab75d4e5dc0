/**
 * Outlook's change reader: a change notification names one item, read by changes.ts; a `missed`
 * lifecycle notification (Graph could not deliver some notifications:
 * https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events) names none, so
 * what changed is read from the position its subscription keeps: the inbox's messages delta
 * (mailDelta.ts), the calendar's calendar-view delta (calendarDelta.ts). Both positions are taken
 * when the subscription is made, so nothing from before it is forwarded.
 */
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import type { NormalizedEvent } from "../../types.ts";
import { isCalendar, readMissedEvents, startCalendarDelta } from "./calendarDelta.ts";
import { readGraphChange } from "./changes.ts";
import { isMailFolder, readMissedMessages, startMailDelta } from "./mailDelta.ts";

/** Taken when a subscription is made: the position of what it watches. */
export function startOutlookDelta(ctx: ChangeStartContext): Promise<string | undefined> {
  if (isMailFolder(ctx.resource)) return startMailDelta(ctx);
  if (isCalendar(ctx.resource)) return startCalendarDelta(ctx);
  return Promise.resolve(undefined);
}

/** A change notification's item, or (Graph's `missed`) what changed since the stored position. */
export function readOutlookChange(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor?: string }> {
  if (!ctx.lifecycleEvent) return readGraphChange(ctx);
  if (isMailFolder(ctx.resource)) return readMissedMessages(ctx);
  if (isCalendar(ctx.resource)) return readMissedEvents(ctx);
  return Promise.resolve({ events: [] });
}
