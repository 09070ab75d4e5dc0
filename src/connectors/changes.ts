/**
 * The `changes` section of a connector declaration: the one code change reader, for providers
 * whose notifications only say that something changed (Gmail's history, Dropbox's list_folder, a
 * Graph delta, Airtable's payloads). `read` reads what changed since the stored position and
 * returns the next one; `start` takes the first position, so the change a first notification
 * announces is read rather than skipped.
 *
 * A reader belongs to a subscription when the subscription's notifications come to it (the
 * declaration's `subscription.notification` or `subscription.webhook`): then `start` runs when the
 * subscription is made and each subscription keeps its own position. Otherwise it belongs to the
 * connection (Gmail's pushes and Dropbox's notifications name the account, and both are polled):
 * `start` runs when the account connects. Every position is kept in one place, `change_position`
 * (../changes/positions.ts).
 */
import * as z from "zod";
import type { FetchInit, NormalizedEvent, SyncNotification } from "./types.ts";

/** What a change reader is given: where it resumes, the account's token, and what asked for the read. */
export interface ChangeReadContext {
  /**
   * GETs (or `init.method`) `${apiUrl}${path}` (or an absolute URL under it) with the account's token;
   * the parsed JSON; throws on non-2xx (`status` on the error, the provider's parsed error `body`).
   */
  fetchJson: (path: string, init?: FetchInit) => Promise<any>;
  /** The ConnectedAccount's externalId (events are pinned to the account anyway). */
  externalId: string;
  /** What the subscription watches; "" for a connection's reader. */
  resource: string;
  /** Where reading resumes (history id, sync token, delta link); undefined before the first read. */
  cursor: string | undefined;
  /** The notification's headers, lower-cased; empty when the account is polled. */
  headers: Record<string, string | undefined>;
  /** The notification's body, or its one item when the declaration names `itemsPath`; empty for a connection's reader. */
  item: Record<string, unknown>;
  /** Set when a lifecycle notification asked for the read (`notification.lifecycle`, Graph's `missed`): the item names no change. */
  lifecycleEvent?: string;
  /** The push that asked a connection's reader to read (Gmail's historyId); absent when the account is polled. */
  notification?: SyncNotification;
  /** The provider's id of the subscription the notification is for (its webhook id); "" for a connection's reader. */
  providerId: string;
  /** The triggers a provider event of this resource maps to (the declaration's `resources[].triggers`, inverted). */
  triggersFor: (providerEvent: string) => string[];
  /**
   * When the read began (the injected clock's now), for positions that are times (a delta's `since`).
   * Not an event's date: an event the provider gives no time for leaves `occurredAt` out, and is dated
   * when its notification came, or when it was read (forwarding/inbound.ts).
   */
  now: Date;
}

/** Reads what changed; `cursor` (when given) is stored once the events are. */
export type ChangeReader = (ctx: ChangeReadContext) => Promise<{ events: NormalizedEvent[]; cursor?: string }>;

/** What a change start is given: the account's token, and the subscription just made (if the reader is a subscription's). */
export interface ChangeStartContext {
  /** As for the change reader. */
  fetchJson: (path: string, init?: FetchInit) => Promise<any>;
  /** What the subscription watches, as declared; "" for a connection's reader. */
  resource: string;
  /** The provider's answer to the subscription's create call (Graph echoes the `resource` it watches); empty for a connection's reader. */
  answer: Record<string, unknown>;
  /** When the subscription was made, or the account connected (a position "from now": Outlook's messages received since). */
  now: Date;
}

/** The provider's current position, where the reader starts; undefined: the reader takes it itself on its first read. */
export type ChangeStart = (ctx: ChangeStartContext) => Promise<string | undefined>;

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === "function", { message: `must be a function (${what})` });

export const changesSchema = z
  .object({
    /** Code: reads what changed since the stored position, with the account's token. */
    read: fn<ChangeReader>("change reader"),
    /** Code: the first position, taken when the subscription is made or the account connects (kept across re-creations). */
    start: fn<ChangeStart>("change start").optional(),
  })
  .strict();

export type ChangesDeclaration = z.output<typeof changesSchema>;

/** Whose position a declared reader keeps: each subscription's, or the connection's (see the top of this file). */
export function changeReaderScope(decl: {
  changes?: ChangesDeclaration;
  subscription?: { notification?: unknown; webhook?: unknown };
}): "subscription" | "connection" | undefined {
  if (!decl.changes) return undefined;
  return decl.subscription?.notification || decl.subscription?.webhook ? "subscription" : "connection";
}

/** The declared reader when it belongs to the connection (Gmail, Dropbox), else undefined. */
export function connectionChangeReader(decl: { changes?: ChangesDeclaration; subscription?: { notification?: unknown; webhook?: unknown } }): ChangesDeclaration | undefined {
  return changeReaderScope(decl) === "connection" ? decl.changes : undefined;
}

/** The declared reader when it belongs to each subscription (a Graph delta, a Calendar sync token), else undefined. */
export function subscriptionChangeReader(decl: { changes?: ChangesDeclaration; subscription?: { notification?: unknown; webhook?: unknown } }): ChangesDeclaration | undefined {
  return changeReaderScope(decl) === "subscription" ? decl.changes : undefined;
}
