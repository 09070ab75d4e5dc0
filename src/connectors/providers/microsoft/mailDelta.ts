/**
 * The inbox after a `missed` lifecycle notification (outlook.ts): its messages delta is read on
 * from the stored position (https://learn.microsoft.com/en-us/graph/api/message-delta,
 * https://learn.microsoft.com/en-us/graph/delta-query-messages).
 *
 * The position is taken when the inbox subscription is made: the first round of
 * `GET /v1.0/me/mailFolders('Inbox')/messages/delta?changeType=created&$filter=receivedDateTime ge <now>`
 * lists no message received before the subscription (so no backlog is read, let alone forwarded),
 * and Graph encodes both options into the round's `@odata.deltaLink`, so every later round lists
 * only messages created since. The cursor keeps that link with the instant of the filter. Graph
 * documents that a messages delta also lists entries outside its filter (`@removed` entries,
 * read/unread changes of older messages): those are skipped. Each listed message is
 * `message_received` as it is now, with the key a notification of that message gets
 * (changes.ts), so what a notification already forwarded is not forwarded again.
 *
 * Without a position (taking it at creation failed) the first `missed` takes it and forwards
 * nothing; a 410 (the delta link expired) takes it again, likewise.
 */
import * as z from "zod";
import { GRAPH_VERSION } from "./graph.ts";
import { graphDedupeKey, occurredAt } from "./changes.ts";
import { deltaRound, parsePosition, readOnFrom } from "./delta.ts";
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import { asString } from "../../json.ts";
import type { NormalizedEvent } from "../../types.ts";

/** The messages of one mail folder (`me/mailFolders('Inbox')/messages`): the resources with a messages delta. */
export const isMailFolder = (resource: string) => /^\/?me\/mailFolders\([^/]+\)\/messages\/?$/.test(resource);

const positionSchema = z.object({ deltaLink: z.url(), receivedSince: z.iso.datetime() });
type Position = z.infer<typeof positionSchema>;

/** The folder's position now: a first round that lists only messages received from now on (whole seconds: the filter's form). */
async function positionAt(fetchJson: ChangeReadContext["fetchJson"], resource: string, now: Date): Promise<string | undefined> {
  const receivedSince = new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString().replace(/\.000Z$/, "Z");
  const folder = resource.replace(/^\/+|\/+$/g, "");
  const { link } = await deltaRound(fetchJson, `${GRAPH_VERSION}/${folder}/delta?changeType=created&$filter=${encodeURIComponent(`receivedDateTime ge ${receivedSince}`)}`);
  return link ? JSON.stringify({ deltaLink: link, receivedSince } satisfies Position) : undefined;
}

/** Taken when the inbox subscription is made. */
export const startMailDelta = (ctx: ChangeStartContext): Promise<string | undefined> => positionAt(ctx.fetchJson, ctx.resource, ctx.now);

export async function readMissedMessages(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor?: string }> {
  const [trigger] = ctx.triggersFor("created");
  if (!trigger || !isMailFolder(ctx.resource)) return { events: [] };
  const position = parsePosition(positionSchema, ctx.cursor);
  if (!position) return { events: [], cursor: await positionAt(ctx.fetchJson, ctx.resource, ctx.now) };
  const round = await readOnFrom(ctx.fetchJson, position.deltaLink);
  if (!round) return { events: [], cursor: await positionAt(ctx.fetchJson, ctx.resource, ctx.now) };
  const since = Date.parse(position.receivedSince);
  const events: NormalizedEvent[] = [];
  for (const item of round.items) {
    const id = asString(item.id);
    const received = Date.parse(asString(item.receivedDateTime) ?? "");
    if (!id || item["@removed"] !== undefined || !(received >= since)) continue;
    events.push({ trigger, externalIds: [ctx.externalId], dedupeKey: graphDedupeKey(id, "created", ""), occurredAt: occurredAt(item), data: item });
  }
  return { events, cursor: round.link ? JSON.stringify({ ...position, deltaLink: round.link } satisfies Position) : ctx.cursor };
}
