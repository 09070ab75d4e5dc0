/**
 * Fake Microsoft Graph subscriptions, on top of the declared fake (OAuth and GET /me):
 *
 * - `POST /v1.0/subscriptions` `{changeType, notificationUrl, resource, expirationDateTime,
 *   clientState}`: before answering, Graph POSTs `notificationUrl?validationToken=<token>` and needs
 *   200 with the token as text/plain within 10 s, else the create is 400 ("Subscription validation
 *   request failed"); then 201 with the subscription, its expiry capped at `maxLifetimeMs`
 *   (https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions,
 *   https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks).
 *   With `lifecycleNotificationUrl` (it may be the same URL), that endpoint is validated the same
 *   way, each with its own token; a subscription without one gets no lifecycle notifications
 *   (https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events).
 * - `PATCH /v1.0/subscriptions/{id}` `{expirationDateTime}` → 200; unknown (or forgotten) → 404.
 * - `DELETE /v1.0/subscriptions/{id}` → 204; unknown → 404.
 * - Changes are POSTed as `{"value":[{subscriptionId, subscriptionExpirationDateTime, changeType,
 *   resource, resourceData:{"@odata.type","@odata.id","@odata.etag",id}, clientState, tenantId}]}`;
 *   Graph wants a 2xx (202) within 3 s.
 * - Lifecycle notifications are POSTed to `lifecycleNotificationUrl` as `{"value":[{subscriptionId,
 *   subscriptionExpirationDateTime, tenantId, clientState, lifecycleEvent}]}`, `lifecycleEvent` one of
 *   `reauthorizationRequired`, `subscriptionRemoved` (Graph has removed it: a PATCH then answers 404), `missed`.
 * - `GET /v1.0/Users/{user}/Messages/{id}` and `/Events/{id}` answer the item.
 * - `GET /v1.0/me/mailFolders('Inbox')/messages/delta` (https://learn.microsoft.com/en-us/graph/api/message-delta,
 *   https://learn.microsoft.com/en-us/graph/delta-query-messages): a round's first request may carry
 *   `changeType` (created, updated or deleted) and `$filter=receivedDateTime ge|gt {instant}`, both
 *   kept in the round's opaque state tokens; each page answers `value` (each changed message once,
 *   as it is now, with `@odata.etag`; a deleted one as `{id, "@removed": {reason: "deleted"}}`) and
 *   `@odata.nextLink` (`$skiptoken`) or, on the last page, `@odata.deltaLink` (`$deltatoken`), from
 *   which the next round lists what changed since. As Graph documents, `@removed` entries and
 *   read/unread changes are listed whatever the round's filter. Pages of `deltaPageSize` (10 unless given).
 * - `GET /v1.0/me/events/{id}` answers the event (a series master as such), with `@odata.etag`.
 * - `GET /v1.0/me/calendarView/delta?startDateTime=…&endDateTime=…` (https://learn.microsoft.com/en-us/graph/api/event-delta,
 *   https://learn.microsoft.com/en-us/graph/delta-query-events): both dates are required on a
 *   round's first request and kept in its state tokens; the first round lists every event of the
 *   window, each later one what changed since, paged as the messages delta is. Events are listed as
 *   instances: a single event as itself (`type: singleInstance`); a weekly series as each of its
 *   occurrences in the window (`type: occurrence`, its own id and changeKey, `seriesMasterId`),
 *   never as its master; a deleted event as `{id, "@removed": {reason: "deleted"}}` per instance it
 *   had in the window. An event created and deleted within one round is not listed. After
 *   `expireCalendarDeltaLinks()`, the links answered before answer 410 `SyncStateNotFound`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { findConnector } from "../../../src/connectors/registry.ts";
import type { Clock } from "../../../src/clock.ts";
import { startDeclaredProvider, type DeclaredIdentity, type FakeDeclaredProvider } from "./declared.ts";
import { jsonReply, type FakeRequest, type Route } from "./oauthServer.ts";

export interface GraphSubscription {
  id: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string | undefined;
  resource: string;
  expirationDateTime: string;
  clientState: string | undefined;
  deleted: boolean;
}

export interface Validation {
  status: number;
  contentType: string | null;
  body: string;
  token: string;
}

type Kind = "Messages" | "Events";

/** A change to a message in the inbox, as the messages delta sees it; a read/unread change is its own kind (listed whatever the filter). */
type MailChange = "created" | "updated" | "readState" | "deleted";

/** A change to an event of the calendar, as the calendar-view delta sees it. */
type CalendarChange = "created" | "updated" | "deleted";

/** The state a calendar-view delta token carries: as a messages delta's, with the view's window. */
interface CalendarDeltaState {
  from: number;
  upto: number;
  offset: number;
  start: string;
  end: string;
  /** Links of an older generation have expired. */
  generation: number;
}

/** The state a messages delta token carries: the round lists changes after `from` up to `upto`, from its `offset`. */
interface MailDeltaState {
  from: number;
  upto: number;
  offset: number;
  changeType?: string;
  since?: string;
}

export interface FakeMicrosoftGraph extends FakeDeclaredProvider {
  subscriptions: GraphSubscription[];
  validations: Validation[];
  patches: string[];
  /** Item reads received (paths). */
  reads: string[];
  live(): GraphSubscription[];
  /** The next calls to /subscriptions answer this status (0: normal again). */
  failWith(status: number): void;
  /** PATCHes wait until the returned function is called (an instance stuck mid-renewal). */
  holdPatches(): () => void;
  /** Graph forgets the subscription (a PATCH then answers 404). */
  forget(id: string): void;
  /** A message arrives in the inbox; the statuses of its notifications (none while they are lost). */
  receiveMessage(subject: string): Promise<number[]>;
  /** The id of the inbox message with this subject. */
  messageId(subject: string): string;
  /** The message is marked read: a new changeKey, a read/unread change in the delta. */
  readMessage(id: string): void;
  /** The message is deleted from the inbox (notified to subscriptions watching `deleted`). */
  deleteMessage(id: string): Promise<number[]>;
  /** While lost, messages still arrive but no notification is sent for them (Graph then sends `missed`). */
  loseNotifications(lost: boolean): void;
  /** Every messages delta request (path and query), and every delta link answered. */
  mailDeltaRequests: string[];
  mailDeltaLinks: string[];
  /** Several event changes in ONE notification request per subscription. */
  /**
   * Several event changes in ONE notification request per subscription (none while notifications
   * are lost). `start`: when the event starts (a day from now unless given); `weekly`: a series
   * of that many weekly occurrences. An update keeps the event's start, series and creation time.
   */
  eventChanges(changes: Array<{ changeType: "created" | "updated" | "deleted"; subject: string; id?: string; start?: string; weekly?: number }>): Promise<{ ids: string[]; statuses: number[] }>;
  /** The id of the calendar event with this subject. */
  eventId(subject: string): string;
  /** Every calendar-view delta request (path and query), and every delta link answered. */
  calendarDeltaRequests: string[];
  calendarDeltaLinks: string[];
  /** Every calendar-view delta and next link answered so far expires (410). */
  expireCalendarDeltaLinks(): void;
  /** Every notification POSTed so far. */
  sent: Array<{ url: string; body: unknown }>;
  /** POSTs a body to a subscription's notificationUrl as Graph would; the status. */
  post(url: string, body: unknown): Promise<number>;
  /** Sends a lifecycle notification for the subscription to its lifecycleNotificationUrl (subscriptionRemoved also removes it); the status. */
  lifecycle(id: string, lifecycleEvent: "reauthorizationRequired" | "subscriptionRemoved" | "missed", clientState?: string): Promise<number>;
}

/**
 * `connector`: which Graph connector's sign-in and /me this fake serves (Outlook unless named:
 * Teams, OneDrive, SharePoint share the subscription API); `routes`: its own resources under /api.
 */
export async function startFakeMicrosoftGraph(opts: { clock: Clock; maxLifetimeMs?: number; connector?: string; routes?: Route<DeclaredIdentity>[]; deltaPageSize?: number }): Promise<FakeMicrosoftGraph> {
  const subscriptions: GraphSubscription[] = [];
  const validations: Validation[] = [];
  const patches: string[] = [];
  const reads: string[] = [];
  const items = new Map<string, Record<string, unknown>>();
  let failing = 0;
  let lost = false;
  const inbox = new Set<string>();
  const mailLog: Array<{ seq: number; id: string; change: MailChange }> = [];
  const logMail = (id: string, change: MailChange) => mailLog.push({ seq: mailLog.length + 1, id, change });
  const mailDeltaRequests: string[] = [];
  const mailDeltaLinks: string[] = [];
  const calendar = new Map<string, Record<string, unknown>>();
  /** Each event deleted, as it last was (its instances are listed as removed). */
  const deletedEvents = new Map<string, Record<string, unknown>>();
  /** A series' number of weekly occurrences, and their ids. */
  const seriesLength = new Map<string, number>();
  const occurrenceIds = new Map<string, string[]>();
  const calendarLog: Array<{ id: string; change: CalendarChange }> = [];
  const calendarDeltaRequests: string[] = [];
  const calendarDeltaLinks: string[] = [];
  let calendarGeneration = 0;
  let held: Promise<void> | undefined;
  const userId = randomUUID();
  const live = () => subscriptions.filter((s) => !s.deleted && Date.parse(s.expirationDateTime) > opts.clock.now().getTime());
  const capped = (requested: string) => new Date(Math.min(Date.parse(requested), opts.clock.now().getTime() + (opts.maxLifetimeMs ?? 4230 * 60_000))).toISOString();
  const unauthorized = jsonReply(401, { error: { code: "InvalidAuthenticationToken", message: "Access token is empty." } });
  const notFound = jsonReply(404, { error: { code: "ResourceNotFound", message: "The object was not found." } });

  const sent: Array<{ url: string; body: unknown }> = [];
  const post = async (url: string, body: unknown) => {
    sent.push({ url, body });
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    await response.body?.cancel();
    return response.status;
  };
  const notification = (s: GraphSubscription, changeType: string, kind: Kind, item: Record<string, unknown>) => ({
    subscriptionId: s.id,
    subscriptionExpirationDateTime: s.expirationDateTime,
    changeType,
    resource: `Users/${userId}/${kind}/${item.id}`,
    resourceData: { "@odata.type": `#Microsoft.Graph.${kind.slice(0, -1)}`, "@odata.id": `Users/${userId}/${kind}/${item.id}`, "@odata.etag": `W/"${item.changeKey}"`, id: item.id },
    clientState: s.clientState,
    tenantId: "9f4ebab6-520d-49c0-85cc-7b25c78d4a93",
  });
  const token = (state: object) => Buffer.from(JSON.stringify(state)).toString("base64url");
  const stateOf = (value: string): MailDeltaState | undefined => {
    try {
      const state = JSON.parse(Buffer.from(value, "base64url").toString()) as MailDeltaState;
      return Number.isInteger(state.from) ? { ...state, upto: state.upto ?? mailLog.length, offset: state.offset ?? 0 } : undefined;
    } catch {
      return undefined;
    }
  };
  const asMessage = (item: Record<string, unknown>) => ({ "@odata.type": "#microsoft.graph.message", "@odata.etag": `W/"${item.changeKey}"`, ...item });
  /** One page of a messages delta round. */
  const mailDelta = (req: FakeRequest, baseUrl: string, folder: string) => {
    mailDeltaRequests.push(`${req.path}?${req.query}`);
    const invalid = (message: string) => jsonReply(400, { error: { code: "ErrorInvalidRequest", message } });
    const carried = req.query.get("$deltatoken") ?? req.query.get("$skiptoken");
    let state: MailDeltaState | undefined;
    if (carried !== null) {
      state = stateOf(carried);
      if (!state) return invalid("The sync state is not valid.");
      // A delta token starts a new round: what changed after it, up to now.
      if (req.query.has("$deltatoken")) state = { ...state, upto: mailLog.length, offset: 0 };
    } else {
      const changeType = req.query.get("changeType") ?? undefined;
      if (changeType !== undefined && !["created", "updated", "deleted"].includes(changeType)) return invalid("changeType must be created, updated or deleted.");
      const filter = req.query.get("$filter");
      const match = filter === null ? null : /^receivedDateTime (?:ge|gt) (\S+)$/.exec(filter);
      if (filter !== null && (!match || Number.isNaN(Date.parse(match[1])))) return invalid("Only receivedDateTime ge|gt {value} can filter a messages delta.");
      state = { from: 0, upto: mailLog.length, offset: 0, changeType, since: match?.[1] };
    }
    const changes = new Map<string, Set<MailChange>>();
    for (const entry of mailLog.slice(state.from, state.upto)) {
      changes.delete(entry.id);
      changes.set(entry.id, new Set([...(changes.get(entry.id) ?? []), entry.change]));
    }
    const listed = [...changes].flatMap(([id, kinds]): Record<string, unknown>[] => {
      if (kinds.has("deleted")) return kinds.has("created") ? [] : [{ "@odata.type": "#microsoft.graph.message", id, "@removed": { reason: "deleted" } }];
      const item = items.get(id);
      if (!item) return [];
      const change = kinds.has("created") ? "created" : kinds.has("updated") ? "updated" : "readState";
      if (change === "readState") return [asMessage(item)];
      if (state.changeType && state.changeType !== change) return [];
      if (state.since && Date.parse(String(item.receivedDateTime)) < Date.parse(state.since)) return [];
      return [asMessage(item)];
    });
    const size = opts.deltaPageSize ?? 10;
    const link = (query: string) => `${baseUrl}/api/v1.0/me/mailFolders('${folder}')/messages/delta?${query}`;
    const page = listed.slice(state.offset, state.offset + size);
    if (state.offset + size < listed.length) return jsonReply(200, { value: page, "@odata.nextLink": link(`$skiptoken=${token({ ...state, offset: state.offset + size })}`) });
    const deltaLink = link(`$deltatoken=${token({ from: state.upto, changeType: state.changeType, since: state.since })}`);
    mailDeltaLinks.push(deltaLink);
    return jsonReply(200, { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Collection(message)", value: page, "@odata.deltaLink": deltaLink });
  };
  const asEvent = (item: Record<string, unknown>) => ({ "@odata.type": "#microsoft.graph.event", "@odata.etag": `W/"${item.changeKey}"`, ...item });
  const HOUR = 60 * 60 * 1000;
  const WEEK = 7 * 24 * HOUR;
  const at = (ms: number) => ({ dateTime: new Date(ms).toISOString().replace("Z", "0000"), timeZone: "UTC" });
  /** The event as a calendar view lists it: itself, or each occurrence of its series, within the window. */
  const startOf = (event: Record<string, unknown>) => Date.parse(`${(event.start as { dateTime: string }).dateTime.slice(0, 23)}Z`);
  const instances = (item: Record<string, unknown>, window: { start: string; end: string }): Record<string, unknown>[] => {
    const start = startOf(item);
    const weekly = seriesLength.get(String(item.id)) ?? 0;
    const occurrences: Record<string, unknown>[] =
      weekly === 0
        ? [asEvent(item)]
        : Array.from({ length: weekly }, (_, k) => {
            const ids = occurrenceIds.get(String(item.id)) ?? Array.from({ length: weekly }, () => `AAMk${randomBytes(16).toString("base64url")}`);
            occurrenceIds.set(String(item.id), ids);
            const changeKey = `${item.changeKey}${k}`;
            return { ...asEvent({ ...item, changeKey }), recurrence: null, id: ids[k], type: "occurrence", seriesMasterId: item.id, start: at(start + k * WEEK), end: at(start + k * WEEK + HOUR) };
          });
    return occurrences.filter((o) => startOf(o) < Date.parse(window.end) && startOf(o) + HOUR > Date.parse(window.start));
  };
  /** One page of a calendar-view delta round. */
  const calendarDelta = (req: FakeRequest, baseUrl: string) => {
    calendarDeltaRequests.push(`${req.path}?${req.query}`);
    const invalid = (message: string) => jsonReply(400, { error: { code: "ErrorInvalidParameter", message } });
    const carried = req.query.get("$deltatoken") ?? req.query.get("$skiptoken");
    let state: CalendarDeltaState;
    if (carried !== null) {
      try {
        state = JSON.parse(Buffer.from(carried, "base64url").toString()) as CalendarDeltaState;
      } catch {
        return invalid("The sync state is not valid.");
      }
      if (state.generation !== calendarGeneration) return jsonReply(410, { error: { code: "SyncStateNotFound", message: "The sync state is no longer valid; start a new round." } });
      if (req.query.has("$deltatoken")) state = { ...state, upto: calendarLog.length, offset: 0 };
    } else {
      const start = req.query.get("startDateTime");
      const end = req.query.get("endDateTime");
      if (!start || !end || Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(end))) return invalid("This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.");
      state = { from: 0, upto: calendarLog.length, offset: 0, start, end, generation: calendarGeneration };
    }
    const changes = new Map<string, Set<CalendarChange>>();
    for (const entry of calendarLog.slice(state.from, state.upto)) {
      changes.delete(entry.id);
      changes.set(entry.id, new Set([...(changes.get(entry.id) ?? []), entry.change]));
    }
    const listed = [...changes].flatMap(([id, kinds]): Record<string, unknown>[] => {
      if (kinds.has("deleted")) {
        const gone = deletedEvents.get(id);
        return kinds.has("created") || !gone ? [] : instances(gone, state).map((i) => ({ "@odata.type": "#microsoft.graph.event", id: i.id, "@removed": { reason: "deleted" } }));
      }
      const item = calendar.get(id);
      return item ? instances(item, state) : [];
    });
    const size = opts.deltaPageSize ?? 10;
    const link = (query: string) => `${baseUrl}/api/v1.0/me/calendarView/delta?${query}`;
    const page = listed.slice(state.offset, state.offset + size);
    if (state.offset + size < listed.length) return jsonReply(200, { value: page, "@odata.nextLink": link(`$skiptoken=${token({ ...state, offset: state.offset + size })}`) });
    const deltaLink = link(`$deltatoken=${token({ ...state, from: state.upto, offset: 0 })}`);
    calendarDeltaLinks.push(deltaLink);
    return jsonReply(200, { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#Collection(event)", value: page, "@odata.deltaLink": deltaLink });
  };
  const watching = (kind: Kind, changeType: string) =>
    live().filter((s) => s.changeType.split(",").includes(changeType) && (kind === "Messages" ? /messages$/i.test(s.resource) : /events$/i.test(s.resource)));

  const provider = await startDeclaredProvider(findConnector(opts.connector ?? "microsoft")!, {
    routes: [
      {
        method: "POST",
        path: "/api/v1.0/subscriptions",
        async handle(req, ctx) {
          if (!ctx.authenticate(req)) return unauthorized;
          if (failing) return jsonReply(failing, { error: { code: "ServiceUnavailable", message: "Service unavailable." } });
          const body = JSON.parse(req.rawBody.toString() || "{}") as Record<string, string>;
          for (const field of ["changeType", "notificationUrl", "resource", "expirationDateTime"]) {
            if (typeof body[field] !== "string") return jsonReply(400, { error: { code: "InvalidRequest", message: `${field} is required.` } });
          }
          if (body.clientState && body.clientState.length > 128) return jsonReply(400, { error: { code: "InvalidRequest", message: "clientState is too long." } });
          if (body.lifecycleNotificationUrl !== undefined && typeof body.lifecycleNotificationUrl !== "string") return jsonReply(400, { error: { code: "InvalidRequest", message: "lifecycleNotificationUrl must be a string." } });
          for (const endpoint of [body.notificationUrl, body.lifecycleNotificationUrl].filter((u): u is string => typeof u === "string")) {
            const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomUUID()}`;
            const url = new URL(endpoint);
            url.searchParams.set("validationToken", token);
            try {
              const response = await fetch(url, { method: "POST", headers: { "content-type": "text/plain; charset=utf-8" }, signal: AbortSignal.timeout(10_000) });
              const validation = { status: response.status, contentType: response.headers.get("content-type"), body: await response.text(), token };
              validations.push(validation);
              if (validation.status !== 200 || validation.body !== token || !validation.contentType?.startsWith("text/plain")) {
                return jsonReply(400, { error: { code: "ValidationError", message: "Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request." } });
              }
            } catch {
              return jsonReply(400, { error: { code: "ValidationError", message: "Subscription validation request timed out." } });
            }
          }
          const subscription: GraphSubscription = {
            id: randomUUID(),
            changeType: body.changeType,
            notificationUrl: body.notificationUrl,
            lifecycleNotificationUrl: body.lifecycleNotificationUrl,
            resource: body.resource,
            expirationDateTime: capped(body.expirationDateTime),
            clientState: body.clientState,
            deleted: false,
          };
          subscriptions.push(subscription);
          const { deleted: _deleted, ...shown } = subscription;
          return jsonReply(201, { "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#subscriptions/$entity", ...shown, applicationId: "24d3b144-21ae-4080-943f-7067b395b913", creatorId: userId });
        },
      },
      {
        method: "PATCH",
        path: /^\/api\/v1\.0\/subscriptions\/([^/]+)$/,
        async handle(req, ctx, [id]) {
          if (!ctx.authenticate(req)) return unauthorized;
          if (failing) return jsonReply(failing, { error: { code: "ServiceUnavailable", message: "Service unavailable." } });
          patches.push(id);
          await held;
          const subscription = live().find((s) => s.id === id);
          if (!subscription) return notFound;
          subscription.expirationDateTime = capped(String((JSON.parse(req.rawBody.toString() || "{}") as Record<string, unknown>).expirationDateTime));
          const { deleted: _deleted, ...shown } = subscription;
          return jsonReply(200, shown);
        },
      },
      {
        method: "DELETE",
        path: /^\/api\/v1\.0\/subscriptions\/([^/]+)$/,
        handle(req, ctx, [id]) {
          if (!ctx.authenticate(req)) return unauthorized;
          const subscription = subscriptions.find((s) => s.id === id && !s.deleted);
          if (!subscription) return notFound;
          subscription.deleted = true;
          return { status: 204, headers: {}, body: "" };
        },
      },
      {
        method: "GET",
        path: /^\/api\/v1\.0\/Users\/([^/]+)\/(Messages|Events)\/([^/]+)$/,
        handle(req, ctx, [, , id]) {
          if (!ctx.authenticate(req)) return unauthorized;
          reads.push(req.path);
          const item = items.get(id);
          return item ? jsonReply(200, item) : notFound;
        },
      },
      {
        method: "GET",
        path: /^\/api\/v1\.0\/me\/mailFolders\('([^']+)'\)\/messages\/delta$/,
        handle(req, ctx, [folder]) {
          if (!ctx.authenticate(req)) return unauthorized;
          return folder.toLowerCase() === "inbox" ? mailDelta(req, ctx.baseUrl, folder) : notFound;
        },
      },
      {
        method: "GET",
        path: /^\/api\/v1\.0\/me\/events\/([^/]+)$/,
        handle(req, ctx, [id]) {
          if (!ctx.authenticate(req)) return unauthorized;
          reads.push(req.path);
          const item = calendar.get(decodeURIComponent(id));
          return item ? jsonReply(200, asEvent(item)) : notFound;
        },
      },
      {
        method: "GET",
        path: "/api/v1.0/me/calendarView/delta",
        handle(req, ctx) {
          if (!ctx.authenticate(req)) return unauthorized;
          return calendarDelta(req, ctx.baseUrl);
        },
      },
      ...(opts.routes ?? []),
    ],
  });

  const newItem = (subject: string, id = `AAMk${randomBytes(12).toString("base64url")}`) => {
    const at = opts.clock.now().toISOString();
    const item = { id, subject, changeKey: randomBytes(9).toString("base64"), createdDateTime: items.get(id)?.createdDateTime ?? at, lastModifiedDateTime: at };
    items.set(id, item);
    return item;
  };

  return Object.assign(provider, {
    subscriptions,
    validations,
    patches,
    reads,
    live,
    holdPatches() {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    failWith(status: number) {
      failing = status;
    },
    forget(id: string) {
      subscriptions.find((s) => s.id === id)!.deleted = true;
    },
    async receiveMessage(subject: string) {
      const item = { ...newItem(subject), receivedDateTime: opts.clock.now().toISOString(), isRead: false };
      items.set(String(item.id), item);
      inbox.add(item.id);
      logMail(item.id, "created");
      if (lost) return [];
      return Promise.all(watching("Messages", "created").map((s) => post(s.notificationUrl, { value: [notification(s, "created", "Messages", item)] })));
    },
    messageId(subject: string) {
      const id = [...inbox].find((i) => items.get(i)?.subject === subject);
      if (!id) throw new Error(`no message "${subject}" in the inbox`);
      return id;
    },
    readMessage(id: string) {
      items.set(id, { ...items.get(id)!, isRead: true, changeKey: randomBytes(9).toString("base64"), lastModifiedDateTime: opts.clock.now().toISOString() });
      logMail(id, "readState");
    },
    async deleteMessage(id: string) {
      const item = items.get(id)!;
      items.delete(id);
      inbox.delete(id);
      logMail(id, "deleted");
      if (lost) return [];
      return Promise.all(watching("Messages", "deleted").map((s) => post(s.notificationUrl, { value: [notification(s, "deleted", "Messages", item)] })));
    },
    loseNotifications(value: boolean) {
      lost = value;
    },
    mailDeltaRequests,
    mailDeltaLinks,
    async eventChanges(changes: Array<{ changeType: "created" | "updated" | "deleted"; subject: string; id?: string; start?: string; weekly?: number }>) {
      const made = changes.map((c) => {
        const before = c.id ? calendar.get(c.id) : undefined;
        const start = before ? startOf(before) : Date.parse(c.start ?? new Date(opts.clock.now().getTime() + 24 * HOUR).toISOString());
        const weekly = before ? (seriesLength.get(String(before.id)) ?? 0) : (c.weekly ?? 0);
        const item = newItem(c.subject, c.id);
        Object.assign(item, {
          type: weekly ? "seriesMaster" : "singleInstance",
          start: at(start),
          end: at(start + HOUR),
          ...(weekly ? { recurrence: { pattern: { type: "weekly", interval: 1 }, range: { type: "numbered", numberOfOccurrences: weekly } } } : {}),
        });
        if (weekly) seriesLength.set(String(item.id), weekly);
        calendarLog.push({ id: String(item.id), change: c.changeType });
        if (c.changeType === "deleted") {
          items.delete(String(item.id));
          calendar.delete(String(item.id));
          deletedEvents.set(String(item.id), item);
        } else {
          calendar.set(String(item.id), item);
        }
        return { change: c, item };
      });
      if (lost) return { ids: made.map((m) => String(m.item.id)), statuses: [] };
      const statuses = await Promise.all(
        live()
          .filter((s) => /events$/i.test(s.resource))
          .map((s) => post(s.notificationUrl, { value: made.filter((m) => s.changeType.split(",").includes(m.change.changeType)).map((m) => notification(s, m.change.changeType, "Events", m.item)) })),
      );
      return { ids: made.map((m) => String(m.item.id)), statuses };
    },
    eventId(subject: string) {
      const id = [...calendar.values()].find((e) => e.subject === subject)?.id;
      if (!id) throw new Error(`no event "${subject}" in the calendar`);
      return String(id);
    },
    calendarDeltaRequests,
    calendarDeltaLinks,
    expireCalendarDeltaLinks() {
      calendarGeneration++;
    },
    sent,
    post,
    async lifecycle(id: string, lifecycleEvent: "reauthorizationRequired" | "subscriptionRemoved" | "missed", clientState?: string) {
      const subscription = subscriptions.find((s) => s.id === id)!;
      if (!subscription.lifecycleNotificationUrl) throw new Error("Graph sends lifecycle notifications only to subscriptions made with a lifecycleNotificationUrl");
      if (lifecycleEvent === "subscriptionRemoved") subscription.deleted = true;
      return post(subscription.lifecycleNotificationUrl, {
        value: [
          {
            subscriptionId: subscription.id,
            subscriptionExpirationDateTime: subscription.expirationDateTime,
            tenantId: "9f4ebab6-520d-49c0-85cc-7b25c78d4a93",
            clientState: clientState ?? subscription.clientState,
            lifecycleEvent,
          },
        ],
      });
    },
  });
}
