/**
 * Dropbox webhooks (https://www.dropbox.com/developers/reference/webhooks) are set once per app in
 * the App Console and only say which accounts changed:
 *
 *   POST {"list_folder":{"accounts":["dbid:…",…]},"delta":{"users":[…]}}
 *   X-Dropbox-Signature: hex HMAC-SHA256 of the body, keyed by the app secret
 *
 * answered within ten seconds (retried with backoff for about ten minutes otherwise). The changes
 * are read with each account's token from `files/list_folder/continue`, from the cursor stored for
 * the connection (`files/list_folder/get_latest_cursor` at connect time, then each returned cursor).
 *
 * Design:
 * - `parseDropboxNotification` returns the notified account ids as `changed`: the connector reads
 *   `queued`, so the webhook answers at once and the poller reads each account after the answer.
 * - `readDropboxChanges` (the connector's change reader, `changes.read`) loops over `list_folder/continue` while
 *   `has_more`, turning entries into events with the pure `entriesToEvents`; a 409 `reset` (the
 *   cursor was invalidated) takes a new latest cursor. Changes made before a reset cannot be read.
 */
import { createHash } from "node:crypto";
import type { ChangeReadContext, ChangeStartContext } from "../../changes.ts";
import type { InboundRequest, InboundResult, NormalizedEvent } from "../../types.ts";
import { readProviderDate } from "../../dates.ts";
import { asRecord, asString, parseJsonObject } from "../../json.ts";
import { storableOptional, storableText } from "../../../text/storable.ts";

/** Dropbox account ids (`dbid:` and URL-safe characters); anything else is not one of Dropbox's. */
const ACCOUNT_ID = /^dbid:[A-Za-z0-9_-]{1,200}$/;
/** More accounts in one notification than this is not a notification of Dropbox's. */
const MAX_ACCOUNTS = 10_000;

/** The accounts a (verified) notification names; `changed` so the poller reads them. */
export function parseDropboxNotification(req: InboundRequest): InboundResult {
  const body = parseJsonObject(req.rawBody);
  const accounts = asRecord(body?.list_folder)?.accounts;
  if (!Array.isArray(accounts) || accounts.length === 0) return { kind: "events", events: [] };
  const ids = accounts.slice(0, MAX_ACCOUNTS).flatMap((a) => (typeof a === "string" && ACCOUNT_ID.test(a) ? [storableText(a)] : []));
  return { kind: "events", events: [], changed: [...new Set(ids)] };
}

/** An entry of files/list_folder/continue (FileMetadata, FolderMetadata or DeletedMetadata). */
export interface DropboxEntry {
  ".tag": "file" | "folder" | "deleted" | string;
  name?: string;
  id?: string;
  path_lower?: string;
  path_display?: string;
  rev?: string;
  size?: number;
  client_modified?: string;
  server_modified?: string;
  content_hash?: string;
}

export interface DropboxListFolderResult {
  entries?: DropboxEntry[];
  cursor?: string;
  has_more?: boolean;
}

/** The event data forwarded for file_changed, folder_created and file_deleted (Dropbox's own names). */
export interface DropboxEntryData {
  account_id: string;
  /** "file", "folder" or "deleted". */
  tag: string;
  /** Absent on deleted entries. */
  id: string | null;
  name: string | null;
  path_lower: string | null;
  path_display: string | null;
  /** Files only: the revision; a new one on every change of the file. */
  rev: string | null;
  size: number | null;
  client_modified: string | null;
  server_modified: string | null;
  content_hash: string | null;
}

const TRIGGERS: Record<string, string> = { file: "file_changed", folder: "folder_created", deleted: "file_deleted" };

/** A short digest of the cursor a page was read from: part of deleted entries' keys. */
const position = (cursor: string) => createHash("sha256").update(cursor).digest("hex").slice(0, 16);

/**
 * Entries → events, one per entry. Dedupe keys, so a re-read (the same cursor read twice: a crash
 * between storing the events and moving the cursor) stores nothing new:
 * - file: `file:<id>:<rev>` — every change makes a new rev;
 * - folder: `folder:<id>:<path_lower>` — a folder moved or renamed shows up again at its new path;
 * - deleted: `deleted:<path_lower>:<digest of the cursor the page was read from>` — deleted
 *   entries have no id or rev, and the same path may be deleted again later, from a later cursor.
 */
export function entriesToEvents(entries: DropboxEntry[], accountId: string, readFrom: string, notifiedAt?: Date): NormalizedEvent[] {
  const events: NormalizedEvent[] = [];
  for (const raw of entries) {
    const entry = asRecord(raw);
    const tag = asString(entry?.[".tag"]);
    const trigger = tag ? TRIGGERS[tag] : undefined;
    if (!entry || !tag || !trigger) continue;
    const text = (key: string) => storableOptional(asString(entry[key])) ?? null;
    const data: DropboxEntryData = {
      account_id: accountId,
      tag,
      id: text("id"),
      name: text("name"),
      path_lower: text("path_lower"),
      path_display: text("path_display"),
      rev: text("rev"),
      size: typeof entry.size === "number" ? entry.size : null,
      client_modified: text("client_modified"),
      server_modified: text("server_modified"),
      content_hash: text("content_hash"),
    };
    let dedupeKey: string;
    if (tag === "file" && data.id && data.rev) dedupeKey = `file:${data.id}:${data.rev}`;
    else if (tag === "folder" && data.id) dedupeKey = `folder:${data.id}:${data.path_lower ?? ""}`;
    else if (tag === "deleted" && data.path_lower) dedupeKey = `deleted:${data.path_lower}:${position(readFrom)}`;
    else continue;
    events.push({ trigger, externalIds: [accountId], dedupeKey, occurredAt: readProviderDate(data.server_modified) ?? notifiedAt, data: { ...data } });
  }
  return events;
}

/** Pages read in one go at most; the rest is read from the stored cursor next time. */
const MAX_PAGES = 50;

const rpc = (body: unknown) => ({ method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });

/** The account's position now, over the whole Dropbox (recursive from the root). */
async function latestCursor(ctx: Pick<ChangeStartContext, "fetchJson">): Promise<string> {
  const answer = asRecord(await ctx.fetchJson("/files/list_folder/get_latest_cursor", rpc({ path: "", recursive: true })));
  const cursor = asString(answer?.cursor);
  if (!cursor) throw new Error("files/list_folder/get_latest_cursor answered without a cursor");
  return cursor;
}

/** A 409 whose error is `reset`: Dropbox invalidated the cursor. */
function isReset(error: unknown): boolean {
  const e = error as { status?: unknown; body?: unknown };
  return e?.status === 409 && asString(asRecord(asRecord(e.body)?.error)?.[".tag"]) === "reset";
}

/** `changes.start` for Dropbox: the account's latest cursor when it connects, so the first change after is read. */
export function startDropboxChanges(ctx: ChangeStartContext): Promise<string> {
  return latestCursor(ctx);
}

/**
 * `changes.read` for Dropbox: what changed since the stored cursor. Without one (a connection made
 * before Dropbox read its changes) the account's latest cursor is taken and nothing is forwarded.
 */
export async function readDropboxChanges(ctx: ChangeReadContext): Promise<{ events: NormalizedEvent[]; cursor: string }> {
  if (!ctx.cursor) return { events: [], cursor: await latestCursor(ctx) };
  const events: NormalizedEvent[] = [];
  let cursor = ctx.cursor;
  for (let page = 0; page < MAX_PAGES; page++) {
    let answer: DropboxListFolderResult;
    try {
      answer = (await ctx.fetchJson("/files/list_folder/continue", rpc({ cursor }))) as DropboxListFolderResult;
    } catch (error) {
      // Dropbox's documented answer: start again from a new cursor (what changed before is gone).
      if (isReset(error)) return { events, cursor: await latestCursor(ctx) };
      throw error;
    }
    events.push(...entriesToEvents(Array.isArray(answer?.entries) ? answer.entries : [], ctx.externalId, cursor, ctx.notification?.occurredAt));
    const next = asString(answer?.cursor);
    if (!next) break;
    cursor = next;
    if (!answer.has_more) break;
  }
  return { events, cursor };
}
