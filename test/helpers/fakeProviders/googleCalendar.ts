/**
 * Fake Google Calendar push channels, on top of the declared fake (OAuth and the identity read):
 *
 * - `POST /calendar/v3/calendars/primary/events/watch` with `{id, type: "web_hook", address, token,
 *   expiration}` answers the channel `{kind: "api#channel", id, resourceId, resourceUri, token,
 *   expiration}` (expiration: Unix ms as a string, capped at the fake's `maxLifetimeMs`), then sends
 *   the `sync` message to the address (https://developers.google.com/calendar/api/guides/push); with
 *   `syncBeforeAnswer`, sends it and waits for its answer first.
 *   Google insists on an HTTPS address; the fake accepts the test's http://127.0.0.1 one.
 * - Every change sends `exists` to each live channel, with X-Goog-Channel-ID, X-Goog-Channel-Token
 *   (when the channel has one), X-Goog-Channel-Expiration, X-Goog-Resource-ID, X-Goog-Resource-URI,
 *   X-Goog-Resource-State and X-Goog-Message-Number, and an empty body.
 * - `POST /calendar/v3/channels/stop` `{id, resourceId}` answers 204; an unknown channel 404.
 * - `GET /calendar/v3/calendars/primary/events` lists events: without syncToken the current ones
 *   (cancelled left out) and a nextSyncToken; with one, everything changed since (cancelled kept, with
 *   status "cancelled"); an unknown or invalidated token answers 410 (https://developers.google.com/calendar/api/guides/sync).
 */
import { randomBytes } from "node:crypto";
import { findConnector } from "../../../src/connectors/registry.ts";
import type { Clock } from "../../../src/clock.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "./declared.ts";
import { jsonReply } from "./oauthServer.ts";

interface Channel {
  id: string;
  resourceId: string;
  address: string;
  token: string | undefined;
  expiration: number;
  stopped: boolean;
  messages: number;
}

interface CalendarEvent {
  id: string;
  status: "confirmed" | "cancelled";
  summary: string;
  created: string;
  updated: string;
  seq: number;
}

export interface FakeGoogleCalendar extends FakeDeclaredProvider {
  channels: Channel[];
  watchBodies: Array<Record<string, unknown>>;
  /** The calendar id of each events.watch call, in order ("primary", or a watched calendar's id). */
  watchedCalendars: string[];
  /** events.list calls received (their query strings). */
  listCalls: string[];
  live(): Channel[];
  createEvent(summary: string): Promise<{ id: string; statuses: number[] }>;
  updateEvent(id: string, summary: string): Promise<number[]>;
  cancelEvent(id: string): Promise<number[]>;
  /** Sends `exists` to every live channel again (a redelivery); the answers' statuses. */
  notifyAll(): Promise<number[]>;
  /** Invalidates every sync token handed out (the next incremental read is a 410). */
  invalidateSyncTokens(): void;
  /** The next events.list answers 503 backendError (Google's answer when it cannot serve the request now). */
  failNextList(): void;
  /** Resolves once every notification sent so far has been answered. */
  idle(): Promise<void>;
}

export async function startFakeGoogleCalendar(opts: {
  clock: Clock;
  maxLifetimeMs?: number;
  /** The `sync` message is sent, and answered, before the watch call is: Google sends it as the channel is made, in no order with the watch's answer. */
  syncBeforeAnswer?: boolean;
}): Promise<FakeGoogleCalendar> {
  const channels: Channel[] = [];
  const watchBodies: Array<Record<string, unknown>> = [];
  const watchedCalendars: string[] = [];
  const listCalls: string[] = [];
  const events = new Map<string, CalendarEvent>();
  let seq = 0;
  let tokenFloor = 0;
  let failList = false;
  const inFlight = new Set<Promise<unknown>>();
  const resourceUri = (base: string) => `${base}/api/calendar/v3/calendars/primary/events?alt=json`;
  let baseUrl = "";

  const send = (channel: Channel, state: "sync" | "exists") => {
    channel.messages++;
    const sending = fetch(channel.address, {
      method: "POST",
      headers: {
        "x-goog-channel-id": channel.id,
        ...(channel.token ? { "x-goog-channel-token": channel.token } : {}),
        "x-goog-channel-expiration": new Date(channel.expiration).toUTCString(),
        "x-goog-resource-id": channel.resourceId,
        "x-goog-resource-uri": resourceUri(baseUrl),
        "x-goog-resource-state": state,
        "x-goog-message-number": String(channel.messages),
      },
    }).then(
      async (response) => {
        await response.body?.cancel();
        return response.status;
      },
      () => 0,
    );
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
    return sending;
  };
  const live = () => channels.filter((c) => !c.stopped && c.expiration > opts.clock.now().getTime());
  const changed = () => Promise.all(live().map((c) => send(c, "exists")));
  const view = (e: CalendarEvent) => ({
    kind: "calendar#event",
    etag: `"${e.seq}"`,
    id: e.id,
    status: e.status,
    ...(e.status === "cancelled" ? {} : { summary: e.summary, created: e.created }),
    updated: e.updated,
  });

  const provider = await startDeclaredProvider(findConnector("google_calendar")!, {
    routes: [
      {
        method: "POST",
        path: /^\/api\/calendar\/v3\/calendars\/([^/]+)\/events\/watch$/,
        async handle(req, ctx, params = []) {
          if (!ctx.authenticate(req)) return jsonReply(401, { error: { code: 401, message: "Invalid Credentials", status: "UNAUTHENTICATED" } });
          const body = JSON.parse(req.rawBody.toString() || "{}") as Record<string, unknown>;
          watchBodies.push(body);
          watchedCalendars.push(params[0] ?? "");
          if (body.type !== "web_hook" || typeof body.id !== "string" || typeof body.address !== "string") {
            return jsonReply(400, { error: { code: 400, message: "Invalid channel", status: "INVALID_ARGUMENT" } });
          }
          const now = opts.clock.now().getTime();
          const requested = body.expiration === undefined ? now + 604_800_000 : Number(body.expiration);
          const channel: Channel = {
            id: body.id,
            resourceId: `res_${randomBytes(6).toString("hex")}`,
            address: body.address,
            token: typeof body.token === "string" ? body.token : undefined,
            expiration: Math.min(requested, now + (opts.maxLifetimeMs ?? 604_800_000)),
            stopped: false,
            messages: 0,
          };
          channels.push(channel);
          if (opts.syncBeforeAnswer) {
            await send(channel, "sync");
          } else {
            // Counted in flight from now, so idle() waits for it however late the timer fires on a loaded machine.
            const sync = new Promise<void>((resolve) => setTimeout(() => resolve(void send(channel, "sync")), 10));
            inFlight.add(sync);
            void sync.finally(() => inFlight.delete(sync));
          }
          return jsonReply(200, {
            kind: "api#channel",
            id: channel.id,
            resourceId: channel.resourceId,
            resourceUri: resourceUri(ctx.baseUrl),
            ...(channel.token ? { token: channel.token } : {}),
            expiration: String(channel.expiration),
          });
        },
      },
      {
        method: "POST",
        path: "/api/calendar/v3/channels/stop",
        handle(req, ctx) {
          if (!ctx.authenticate(req)) return jsonReply(401, { error: { code: 401, message: "Invalid Credentials", status: "UNAUTHENTICATED" } });
          const body = JSON.parse(req.rawBody.toString() || "{}") as Record<string, unknown>;
          const channel = channels.find((c) => c.id === body.id && c.resourceId === body.resourceId && !c.stopped);
          if (!channel) return jsonReply(404, { error: { code: 404, message: "Channel not found", status: "NOT_FOUND" } });
          channel.stopped = true;
          return { status: 204, headers: {}, body: "" };
        },
      },
      {
        method: "GET",
        path: /^\/api\/calendar\/v3\/calendars\/([^/]+)\/events$/,
        handle(req, ctx) {
          if (!ctx.authenticate(req)) return jsonReply(401, { error: { code: 401, message: "Invalid Credentials", status: "UNAUTHENTICATED" } });
          listCalls.push(req.query.toString());
          if (failList) {
            failList = false;
            return jsonReply(503, { error: { code: 503, message: "Backend Error", status: "UNAVAILABLE", errors: [{ reason: "backendError" }] } });
          }
          const syncToken = req.query.get("syncToken");
          let items: CalendarEvent[];
          if (syncToken) {
            const since = /^st_(\d+)$/.exec(syncToken);
            if (!since || Number(since[1]) < tokenFloor) {
              return jsonReply(410, { error: { code: 410, message: "Sync token is no longer valid, a full sync is required.", status: "GONE", errors: [{ reason: "fullSyncRequired" }] } });
            }
            items = [...events.values()].filter((e) => e.seq > Number(since[1]));
          } else {
            items = [...events.values()].filter((e) => e.status !== "cancelled");
          }
          return jsonReply(200, { kind: "calendar#events", summary: "primary", items: items.map(view), nextSyncToken: `st_${seq}` });
        },
      },
    ],
  });
  baseUrl = provider.url;

  const stamp = () => new Date(opts.clock.now().getTime() + seq).toISOString();
  return Object.assign(provider, {
    channels,
    watchBodies,
    watchedCalendars,
    listCalls,
    live,
    async createEvent(summary: string) {
      const at = stamp();
      const event: CalendarEvent = { id: `evt${randomBytes(8).toString("hex")}`, status: "confirmed" as const, summary, created: at, updated: at, seq: ++seq };
      events.set(event.id, event);
      return { id: event.id, statuses: await changed() };
    },
    async updateEvent(id: string, summary: string) {
      const event = events.get(id)!;
      Object.assign(event, { summary, seq: ++seq, updated: new Date(Date.parse(event.created) + 60_000 * seq).toISOString() });
      return changed();
    },
    async cancelEvent(id: string) {
      const event = events.get(id)!;
      Object.assign(event, { status: "cancelled" as const, seq: ++seq, updated: new Date(Date.parse(event.created) + 60_000 * seq).toISOString() });
      return changed();
    },
    notifyAll: changed,
    failNextList() {
      failList = true;
    },
    invalidateSyncTokens() {
      tokenFloor = ++seq;
    },
    async idle() {
      // The sync message leaves 10 ms after the watch is answered.
      await new Promise((resolve) => setTimeout(resolve, 50));
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  });
}
