/**
 * The change reader of Airtable's webhooks. A notification is only a ping, `{base: {id}, webhook:
 * {id}, timestamp}`; what changed is read with the account's token from
 * `GET /v0/bases/{baseId}/webhooks/{webhookId}/payloads?cursor=N`
 * (https://airtable.com/developers/web/api/list-webhook-payloads), which answers
 * `{payloads, cursor, mightHaveMore}`: read on while `mightHaveMore`, and the answer's `cursor` kept
 * for the next ping. A cursor belongs to one webhook, so it is kept as `<webhookId>:<cursor>`: a
 * webhook made again starts at its own first payload (cursor 1, the documented default).
 *
 * Each payload (https://airtable.com/developers/web/api/model/webhooks-payload) carries a
 * `baseTransactionNumber` and `changedTablesById`: per table, `createdRecordsById`,
 * `changedRecordsById` and `destroyedRecordIds`. One event per record: `record_created`,
 * `record_updated`, `record_deleted`, deduplicated by record id and transaction.
 */
import type { ChangeReadContext } from "../../changes.ts";
import { readProviderDate } from "../../dates.ts";
import { asRecord } from "../../json.ts";
import type { NormalizedEvent } from "../../types.ts";

const MAX_PAGES = 20;

const records = (value: unknown) => Object.entries(asRecord(value) ?? {}).filter(([, record]) => asRecord(record));

export async function readAirtablePayloads(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor?: string }> {
  const listed = new Set(ctx.triggersFor("tableData"));
  const [hookOfCursor, kept] = (ctx.cursor ?? "").split(":");
  let cursor = hookOfCursor === ctx.providerId && /^\d+$/.test(kept ?? "") ? Number(kept) : 1;
  const events: NormalizedEvent[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = asRecord(await ctx.fetchJson(`/v0/${ctx.resource}/webhooks/${encodeURIComponent(ctx.providerId)}/payloads?cursor=${cursor}`)) ?? {};
    for (const raw of Array.isArray(answer.payloads) ? answer.payloads : []) {
      const payload = asRecord(raw);
      if (!payload) continue;
      const transaction = String(payload.baseTransactionNumber ?? "");
      const at = readProviderDate(payload.timestamp);
      const common = { baseId: ctx.resource.replace(/^bases\//, ""), timestamp: payload.timestamp, baseTransactionNumber: payload.baseTransactionNumber, actionMetadata: payload.actionMetadata };
      const push = (trigger: string, tableId: string, recordId: string, data: Record<string, unknown>) => {
        if (!listed.has(trigger)) return;
        events.push({
          trigger,
          externalIds: [ctx.externalId],
          dedupeKey: `${recordId}:${trigger}:${transaction}`,
          occurredAt: at,
          data: { ...common, tableId, recordId, ...data },
        });
      };
      for (const [tableId, rawTable] of Object.entries(asRecord(payload.changedTablesById) ?? {})) {
        const table = asRecord(rawTable) ?? {};
        for (const [recordId, record] of records(table.createdRecordsById)) push("record_created", tableId, recordId, record as Record<string, unknown>);
        for (const [recordId, record] of records(table.changedRecordsById)) push("record_updated", tableId, recordId, record as Record<string, unknown>);
        for (const recordId of Array.isArray(table.destroyedRecordIds) ? table.destroyedRecordIds : []) {
          if (typeof recordId === "string") push("record_deleted", tableId, recordId, {});
        }
      }
    }
    const next = typeof answer.cursor === "number" && Number.isInteger(answer.cursor) && answer.cursor >= cursor ? answer.cursor : cursor;
    const more = answer.mightHaveMore === true && next > cursor;
    cursor = next;
    if (!more) break;
  }
  return { events, cursor: `${ctx.providerId}:${cursor}` };
}

