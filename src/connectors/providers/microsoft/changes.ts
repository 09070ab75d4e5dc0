/**
 * Microsoft Graph's change reader. A notification's `value[]` holds one item per change, each
 * naming its subscription, its `clientState` (checked before this runs), its `changeType` and the
 * changed item's `resource` path (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks).
 * Without resource data in the notification, the item is read at that path with the account's
 * token; a deleted item cannot be read, so its notification's own fields are forwarded.
 *
 * The dedupe key is the item's id and change type, and for an update also its version: an item is
 * created and deleted once, so a read of the same change that finds the item changed since (a
 * message read meanwhile has a new etag) is still that change (mailDelta.ts lists a missed message
 * as it is now and keys it the same way; calendarDelta.ts keys a missed event as its notification
 * would be, an update by the etag a notification's resourceData names).
 */
import type { ChangeReadContext } from "../../changes.ts";
import { GRAPH_VERSION } from "./graph.ts";
import { asRecord, asString } from "../../json.ts";
import { readProviderDate } from "../../dates.ts";
import type { NormalizedEvent } from "../../types.ts";

export async function readGraphChange(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[] }> {
  const changeType = asString(ctx.item.changeType) ?? "";
  const resource = asString(ctx.item.resource);
  const resourceData = asRecord(ctx.item.resourceData) ?? {};
  const id = asString(resourceData.id);
  const [trigger] = ctx.triggersFor(changeType);
  if (!trigger || !resource || !id) return { events: [] };
  let data: Record<string, unknown>;
  if (changeType === "deleted") {
    data = { id, changeType, resource };
  } else {
    try {
      data = asRecord(await ctx.fetchJson(`${GRAPH_VERSION}/${resource.replace(/^\/+/, "")}`)) ?? {};
    } catch (error) {
      // Gone between the change and now: nothing left to forward.
      if (asRecord(error)?.status === 404) return { events: [] };
      throw error;
    }
  }
  const version = asString(resourceData["@odata.etag"]) ?? asString(data.changeKey) ?? asString(data.lastModifiedDateTime) ?? "";
  return { events: [{ trigger, externalIds: [ctx.externalId], dedupeKey: graphDedupeKey(id, changeType, version), occurredAt: occurredAt(data), data }] };
}

/** One change of a Graph item: `created` and `deleted` happen once per item, an update once per version. */
export const graphDedupeKey = (id: string, changeType: string, version: string) => (changeType === "updated" ? `${id}:updated:${version}` : `${id}:${changeType}`);

/** When a Graph item last changed (or arrived); undefined when it says neither readably (the accepting path dates it then). */
export function occurredAt(data: Record<string, unknown>): Date | undefined {
  return readProviderDate(data.lastModifiedDateTime ?? data.receivedDateTime);
}
