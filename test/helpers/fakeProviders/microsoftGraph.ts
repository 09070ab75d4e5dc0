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
 */
import { randomBytes, randomUUID } from "node:crypto";
import { findConnector } from "../../../src/connectors/registry.ts";
import type { Clock } from "../../../src/clock.ts";
import { startDeclaredProvider, type DeclaredIdentity, type FakeDeclaredProvider } from "./declared.ts";
import { jsonReply, type Route } from "./oauthServer.ts";

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
  receiveMessage(subject: string): Promise<number[]>;
  /** Several event changes in ONE notification request per subscription. */
  eventChanges(changes: Array<{ changeType: "created" | "updated" | "deleted"; subject: string; id?: string }>): Promise<{ ids: string[]; statuses: number[] }>;
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
export async function startFakeMicrosoftGraph(opts: { clock: Clock; maxLifetimeMs?: number; connector?: string; routes?: Route<DeclaredIdentity>[] }): Promise<FakeMicrosoftGraph> {
  const subscriptions: GraphSubscription[] = [];
  const validations: Validation[] = [];
  const patches: string[] = [];
  const reads: string[] = [];
  const items = new Map<string, Record<string, unknown>>();
  let failing = 0;
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
      const item = { ...newItem(subject), receivedDateTime: opts.clock.now().toISOString() };
      items.set(String(item.id), item);
      return Promise.all(watching("Messages", "created").map((s) => post(s.notificationUrl, { value: [notification(s, "created", "Messages", item)] })));
    },
    async eventChanges(changes: Array<{ changeType: "created" | "updated" | "deleted"; subject: string; id?: string }>) {
      const made = changes.map((c) => {
        const item = newItem(c.subject, c.id);
        if (c.changeType === "deleted") items.delete(String(item.id));
        return { change: c, item };
      });
      const statuses = await Promise.all(
        live()
          .filter((s) => /events$/i.test(s.resource))
          .map((s) => post(s.notificationUrl, { value: made.filter((m) => s.changeType.split(",").includes(m.change.changeType)).map((m) => notification(s, m.change.changeType, "Events", m.item)) })),
      );
      return { ids: made.map((m) => String(m.item.id)), statuses };
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
