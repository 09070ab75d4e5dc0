/**
 * The change reader of the Graph drive connectors (OneDrive, SharePoint). A driveItem subscription
 * only says that something in the drive changed (`changeType: "updated"`, never which item); what
 * changed is read from the drive's delta (https://learn.microsoft.com/en-us/graph/api/driveitem-delta),
 * resuming at the stored `@odata.deltaLink`, following `@odata.nextLink` pages. The drive's position
 * is taken when the subscription is made (`startDriveDelta`: `?token=latest`, which answers no items
 * and the delta link of the drive as it is now), so the change the first notification announces is
 * read: nothing from before the subscription is forwarded, nothing after it is skipped. Where that
 * failed, the first notification takes the position instead (and its change is not forwarded).
 * A 410 (the delta link expired: a resync is needed) takes the position again. A `missed` lifecycle
 * notification reads on from the stored position too, so the changes Graph could not announce are forwarded.
 *
 * Files only (folders and the root are skipped): a `deleted` facet is `file_deleted`; an item whose
 * creation and last change are the same instant is `file_created`; any other is `file_updated`.
 */
import { GRAPH_VERSION } from "./graph.ts";
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import { asRecord, asString } from "../../json.ts";
import { readOnFrom } from "./delta.ts";
import { readProviderDate } from "../../dates.ts";
import type { NormalizedEvent } from "../../types.ts";

const deltaPath = (resource: string) => `${GRAPH_VERSION}/${resource.replace(/^\/+|\/+$/g, "")}/delta`;

async function latestAt(fetchJson: ChangeStartContext["fetchJson"], resource: string): Promise<string | undefined> {
  const answer = asRecord(await fetchJson(`${deltaPath(resource)}?token=latest`)) ?? {};
  return asString(answer["@odata.deltaLink"]);
}

// The notification names the subscription's resource (`/me/drive/root`, `sites/{id}/drive/root`).
const latest = (ctx: ChangeReadContext) => latestAt(ctx.fetchJson, asString(ctx.item.resource) ?? ctx.resource);

/** The drive's current delta link, taken when the subscription is made; Graph answers the subscription with the resource it watches. */
export const startDriveDelta = (ctx: ChangeStartContext): Promise<string | undefined> => latestAt(ctx.fetchJson, asString(ctx.answer.resource) ?? ctx.resource);

function triggerOf(item: Record<string, unknown>): string | undefined {
  if (item.folder || item.root) return undefined;
  if (item.deleted) return "file_deleted";
  if (!item.file) return undefined;
  return item.createdDateTime !== undefined && item.createdDateTime === item.lastModifiedDateTime ? "file_created" : "file_updated";
}

export async function readDriveDelta(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor?: string }> {
  // A lifecycle notification (Graph's `missed`) names no change: read on as an `updated` one would (a drive's only change type).
  const listed = new Set(ctx.triggersFor(ctx.lifecycleEvent ? "updated" : (asString(ctx.item.changeType) ?? "")));
  if (listed.size === 0) return { events: [] };
  if (!ctx.cursor) return { events: [], cursor: await latest(ctx) };
  const round = await readOnFrom(ctx.fetchJson, ctx.cursor);
  if (!round) return { events: [], cursor: await latest(ctx) };
  const { items, link: cursor } = round;
  const events: NormalizedEvent[] = [];
  for (const item of items) {
    const trigger = triggerOf(item);
    const id = asString(item.id);
    if (!trigger || !id || !listed.has(trigger)) continue;
    // The eTag changes with every change to the item (content, name or place); the cTag only with its content.
    const version = trigger === "file_deleted" ? "deleted" : (asString(item.eTag) ?? asString(item.cTag) ?? asString(item.lastModifiedDateTime) ?? "");
    events.push({ trigger, externalIds: [ctx.externalId], dedupeKey: `${id}:${trigger}:${version}`, occurredAt: readProviderDate(item.lastModifiedDateTime), data: item });
  }
  return { events, cursor: cursor ?? ctx.cursor };
}
