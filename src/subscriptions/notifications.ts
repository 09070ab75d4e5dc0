/**
 * Notifications for per-account subscriptions (`delivery: "subscription"` connectors): each names
 * its subscription (a header, or a path in each item of a batched body) and carries its secret
 * (Calendar's channel token, Graph's clientState), compared in constant time with that
 * subscription's own before anything is read. Then the changes are read with the account's token
 * (the declared change reader, resuming at the subscription's position) and stored one event per changed item,
 * deduplicated by the reader's item id + version. One forged item refuses the whole request.
 *
 * Items about the subscription itself (`notification.lifecycle`: Graph's lifecycle notifications)
 * are verified the same way, then renew it now, make it again, or read the changes it missed.
 */
import { appKeyed, urlTokenMatches } from "./urlToken.ts";
import { findConnector, resolveEndpoints } from "../connectors/registry.ts";
import { asRecord, asString, parseJsonObject, valueAt } from "../connectors/json.ts";
import type { ConnectorDefinition, InboundRequest } from "../connectors/types.ts";
import { safeEqual, type SecretBox } from "../crypto/secrets.ts";
import type { Sql } from "../db/sql.ts";
import { emptyOutcome, type InboundEvents, type InboundOutcome, UpstreamUnavailableError } from "../forwarding/inbound.ts";
import { bearerFetchJson } from "../oauth/provider.ts";
import { type AccessTokens, ReauthRequiredError } from "../connections/accessTokens.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "pino";
import type { WakeSignal } from "../events/wakeSignal.ts";
import { declaredResource, subscriptionWebhookScheme, type NotificationLocation } from "../connectors/subscription.ts";
import { verifyWithScheme } from "../connectors/schemes/index.ts";
import { movePosition } from "../changes/positions.ts";
import type { ClientCredentials } from "../credentials/clientCredentials.ts";
import type { InboundSecrets } from "../credentials/inboundSecrets.ts";
import type { SubscriptionMetrics } from "./metrics.ts";
import type { SubscriptionQueue } from "./queue/index.ts";
import type { HandshakeReply } from "../connectors/schemes/index.ts";

export interface SubscriptionNotificationDeps {
  sql: Sql;
  box: SecretBox;
  /** The key of app-keyed subscriptions' URL tokens (./urlToken.ts): checked when given. */
  urlKey?: Buffer;
  clock: Clock;
  connectorEnv: Record<string, string | undefined>;
  accessTokens: Pick<AccessTokens, "fresh">;
  inboundEvents: Pick<InboundEvents, "acceptEvents">;
  queue: Pick<SubscriptionQueue, "recordHandshakeSecret" | "renewNow" | "recordRemoved">;
  metrics: Pick<SubscriptionMetrics, "operation" | "lifecycle">;
  logger: Pick<Logger, "info" | "warn">;
  /** Wakes the subscription manager: a subscription a lifecycle notification made due is worked at once. */
  signal: Pick<WakeSignal, "notify">;
  /** For providers that sign a subscription's events with the OAuth app's client secret (Jira). */
  clientCredentials: Pick<ClientCredentials, "resolve">;
  /** For providers that sign every webhook of an app with one app-level key (Box): the connector's webhook secret. */
  inboundSecrets: Pick<InboundSecrets, "get">;
}

interface LiveSubscription {
  id: string;
  provider_id: string;
  resource: string;
  secret_encrypted: string | null;
  cursor: string | null;
  connected_account_id: string;
  /** The connection's account name. */
  account: string;
  external_id: string;
  /** The watched resource's params (§13): its events carry them as `resource`. */
  resource_params: unknown;
}

/** Whose a subscription's events are, and the reader that deduplicates them (../forwarding/inbound.ts EventOrigin). */
const connectionOf = (sub: LiveSubscription) => ({ reader: sub.id, account: { id: sub.connected_account_id, account: sub.account } });

/** The `resource` a subscription's events carry: its watched resource's params, else null. */
const resourceOf = (sub: LiveSubscription): Record<string, string> | null =>
  sub.resource_params && typeof sub.resource_params === "object" ? (sub.resource_params as Record<string, string>) : null;

/** Refused: not the provider's, or for no subscription of this deployment. Nothing was read. */
export interface Refused {
  refused: string;
}

const MAX_ITEMS = 100;

const read = (location: NotificationLocation, req: InboundRequest, item: Record<string, unknown>) =>
  location.header ? req.headers[location.header] : asString(valueAt(item, location.path!));

export function createSubscriptionNotifications(deps: SubscriptionNotificationDeps) {
  async function live(deploymentId: string, connector: string, providerIds: string[]): Promise<Map<string, LiveSubscription>> {
    const rows = await deps.sql.query<LiveSubscription>(
      `select s.id, s.provider_id, s.resource, s.secret_encrypted, p.cursor, s.connected_account_id, a.account, a.external_id, s.resource_params
       from provider_subscription s join connected_account a on a.id = s.connected_account_id
       left join change_position p on p.connected_account_id = s.connected_account_id and p.reader = s.id
       where s.connector = $1 and s.provider_id = any($2::text[]) and s.deployment_id = $3 and s.status <> 'DELETED' and a.status = 'ACTIVE'`,
      [connector, providerIds, deploymentId],
      "subscriptions_notified",
    );
    return new Map(rows.map((row) => [row.provider_id, row]));
  }

  async function readItem(deploymentId: string, def: ConnectorDefinition, sub: LiveSubscription, req: InboundRequest, item: Record<string, unknown>, lifecycleEvent?: string): Promise<InboundOutcome | undefined> {
    const decl = def.declaration.subscription!;
    const byEvent = new Map<string, string[]>();
    for (const [trigger, events] of Object.entries(declaredResource(decl, sub.resource)?.triggers ?? {})) {
      for (const event of events) byEvent.set(event, [...(byEvent.get(event) ?? []), trigger]);
    }
    let accessToken: string;
    try {
      accessToken = await deps.accessTokens.fresh(sub.connected_account_id);
    } catch (error) {
      // A person must reconnect the account; the provider redelivering will not help.
      if (error instanceof ReauthRequiredError) return undefined;
      throw new UpstreamUnavailableError(`could not get a token for the account: ${(error as Error).message}`);
    }
    const { apiUrl } = resolveEndpoints(def, deps.connectorEnv);
    let changes;
    try {
      changes = await def.declaration.changes!.read({
        fetchJson: bearerFetchJson(apiUrl, accessToken),
        externalId: sub.external_id,
        resource: sub.resource,
        cursor: sub.cursor ?? undefined,
        headers: req.headers,
        item,
        ...(lifecycleEvent ? { lifecycleEvent } : {}),
        providerId: sub.provider_id,
        triggersFor: (event) => byEvent.get(event) ?? [],
        now: deps.clock.now(),
      });
      deps.metrics.operation(def.name, "read", "success");
    } catch (error) {
      deps.metrics.operation(def.name, "read", "failure");
      throw new UpstreamUnavailableError(`could not read the provider's changes: ${(error as Error).message}`);
    }
    // Stored first, then the cursor moves: a crash in between re-reads (and deduplicates) rather than skips.
    const outcome = await deps.inboundEvents.acceptEvents(
      deploymentId,
      def,
      changes.events.map((event) => ({ ...event, resource: resourceOf(sub) })),
      { connection: connectionOf(sub) },
    );
    if (changes.cursor !== undefined && changes.cursor !== sub.cursor) await movePosition(deps.sql, sub.connected_account_id, sub.id, changes.cursor);
    return outcome;
  }

  /**
   * A verified lifecycle item: the declared action, counted and logged (ids only). `read` runs the
   * change reader with the item, as a change notification would.
   */
  async function lifecycleItem(deploymentId: string, def: ConnectorDefinition, sub: LiveSubscription, req: InboundRequest, item: Record<string, unknown>, raw: string): Promise<InboundOutcome | undefined> {
    const declared = def.declaration.subscription!.notification!.lifecycle!.events;
    // The provider's word, bounded for the log; only the declared events (own keys) do anything.
    const event = raw.slice(0, 64);
    const action = Object.hasOwn(declared, raw) ? declared[raw] : undefined;
    const fields = { subscriptionId: sub.id, deploymentId, connector: def.name, resource: sub.resource, providerId: sub.provider_id, lifecycleEvent: event, action: action ?? "none" };
    deps.metrics.lifecycle(def.name, event);
    let outcome: InboundOutcome | undefined;
    let done = true;
    if (action === "renew") done = await deps.queue.renewNow(sub.id, sub.provider_id);
    else if (action === "recreate") done = await deps.queue.recordRemoved(sub.id, sub.provider_id);
    else if (action === "read") outcome = await readItem(deploymentId, def, sub, req, item, event);
    if (action === "renew" || action === "recreate") deps.signal.notify();
    deps.logger[action ? "info" : "warn"](
      { ...fields, applied: done },
      action ? `provider subscription lifecycle ${event}: ${action}` : `provider subscription lifecycle ${event}: not handled`,
    );
    return outcome;
  }

  /** The live subscription a `{subscriptionUrl}` names, with its account. */
  async function named(deploymentId: string, connector: string, id: string) {
    const rows = await deps.sql.query<LiveSubscription>(
      `select s.id, s.provider_id, s.resource, s.secret_encrypted, p.cursor, s.connected_account_id, a.account, a.external_id, s.resource_params
       from provider_subscription s join connected_account a on a.id = s.connected_account_id
       left join change_position p on p.connected_account_id = s.connected_account_id and p.reader = s.id
       where s.id = $1 and s.connector = $2 and s.deployment_id = $3 and s.status <> 'DELETED' and a.status = 'ACTIVE'`,
      [id, connector, deploymentId],
      "subscription_named",
    );
    return rows[0];
  }

  /** The connection's credential as the provider signs with it; none when the account must reconnect. */
  async function accountToken(connectedAccountId: string): Promise<string | undefined> {
    try {
      return await deps.accessTokens.fresh(connectedAccountId);
    } catch (error) {
      if (error instanceof ReauthRequiredError) return undefined;
      throw new UpstreamUnavailableError(`could not get the account's token: ${(error as Error).message}`);
    }
  }

  /** The key a subscription's own webhook is signed with, as its declaration says (`subscription.webhook.key`). */
  async function signingKey(
    key: "subscription" | "client_secret" | "webhook_secret" | "access_token" | "basic_password",
    sub: { connected_account_id: string; secret_encrypted: string | null },
    def: ConnectorDefinition,
    deploymentId: string,
    webhookSecret: string,
  ): Promise<string | undefined> {
    switch (key) {
      case "client_secret":
        return (await deps.clientCredentials.resolve(deploymentId, def)).clientSecret;
      case "access_token":
        return accountToken(sub.connected_account_id);
      case "basic_password": {
        // The stored HTTP Basic credential is base64(user:password).
        const credential = await accountToken(sub.connected_account_id);
        const decoded = credential ? Buffer.from(credential, "base64").toString("utf8") : "";
        const at = decoded.indexOf(":");
        return at < 0 ? undefined : decoded.slice(at + 1) || undefined;
      }
      case "webhook_secret":
        return webhookSecret;
      case "subscription":
        return sub.secret_encrypted ? deps.box.open(sub.secret_encrypted) : undefined;
    }
  }

  return {
    /**
     * Events a provider POSTs to a subscription's own URL (`subscription.webhook`): verified with
     * the declared scheme keyed by that subscription's secret (or the OAuth app's client secret, or
     * the connector's webhook secret),
     * parsed by the connector's webhook section, and stored for the subscription's account only.
     */
    async acceptSigned(deploymentId: string, def: ConnectorDefinition, req: InboundRequest, subscriptionId: string, webhookSecret = ""): Promise<InboundOutcome | Refused> {
      const signed = def.declaration.subscription?.webhook;
      if (!signed) return { refused: "the connector's subscriptions send no events of their own" };
      // An app-wide signing key does not tell subscriptions apart: the URL's own token does (constant time).
      if (deps.urlKey && appKeyed(signed.key) && !urlTokenMatches(deps.urlKey, subscriptionId, req.query?.get("token"))) return { refused: "the subscription URL's token does not match" };
      const sub = await named(deploymentId, def.name, subscriptionId);
      const key = sub ? await signingKey(signed.key, sub, def, deploymentId, webhookSecret) : undefined;
      const now = deps.clock.now();
      // Verified even for an unknown subscription, so timing does not tell known ids apart.
      const scheme = subscriptionWebhookScheme(def.declaration);
      if (!scheme) return { refused: "the connector's subscriptions send no events of their own" };
      const verified = verifyWithScheme(scheme, { req, secret: key || "\u0000no subscription", now });
      if (!sub || !key || !verified.ok) return { refused: verified.ok ? "no such subscription" : verified.reason };
      // A signed ping that only says "changed" (Airtable's): what changed is read with the account's token.
      if (def.declaration.changes) {
        if (!sub.provider_id) return { refused: "the subscription is not made yet" };
        const body = parseJsonObject(req.rawBody);
        if (!body) return { refused: "the notification is not a JSON object" };
        return (await readItem(deploymentId, def, sub, req, body)) ?? emptyOutcome();
      }
      // The subscription's account only: where the declaration keeps the actor's events (Jira), an event whose body names other accounts is theirs.
      const events = def.inbound
        .parse(req)
        .events.filter((event) => signed.keep === "all" || event.externalIds.length === 0 || event.externalIds.includes(sub.external_id))
        .map((event) => ({ ...event, resource: resourceOf(sub) }));
      return deps.inboundEvents.acceptEvents(deploymentId, def, events, { request: { rawBody: req.rawBody, now }, connection: connectionOf(sub) });
    },

    /**
     * The provider handing a subscription its signing secret while our create call is in flight
     * (`webhook.secretHandshake`, Asana's X-Hook-Secret): kept sealed and echoed back. Undefined
     * when the request carries no such header (an ordinary delivery). Refused unless that
     * subscription's create is in flight and has no secret yet, so nobody else can plant one.
     */
    async acceptHandshake(deploymentId: string, def: ConnectorDefinition, req: InboundRequest, subscriptionId: string): Promise<HandshakeReply | Refused | undefined> {
      const header = def.declaration.subscription?.webhook?.secretHandshake?.header;
      const secret = header ? req.headers[header]?.trim() : undefined;
      if (!header || !secret || (req.method ?? "POST") !== "POST") return undefined;
      if (secret.length > 512) return { refused: "the handshake's secret is too long" };
      const recorded = await deps.queue.recordHandshakeSecret(subscriptionId, deploymentId, def.name, deps.box.seal(secret));
      if (!recorded) return { refused: "no subscription of this deployment is being created at this URL" };
      return { status: 200, contentType: "text/plain; charset=utf-8", body: "", headers: { [header]: secret } };
    },

    /** Verifies every item of the notification with its subscription's secret, then reads and stores the changes. */
    async accept(deploymentId: string, connector: string, req: InboundRequest): Promise<InboundOutcome | Refused> {
      const def = findConnector(connector);
      const notification = def?.declaration.subscription?.notification;
      if (!def || !notification) return { refused: "the connector takes no subscription notifications" };
      const body = parseJsonObject(req.rawBody) ?? {};
      const items = notification.itemsPath ? (valueAt(body, notification.itemsPath) as unknown) : [body];
      if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) return { refused: "no notification in the request" };
      const parsed = items.map((raw) => {
        const item = asRecord(raw) ?? {};
        return { item, providerId: read(notification.providerId, req, item), secret: read(notification.secret, req, item) };
      });
      if (parsed.some((p) => !p.providerId || !p.secret)) return { refused: "a notification names no subscription or carries no secret" };
      const subscriptions = await live(deploymentId, def.name, [...new Set(parsed.map((p) => p.providerId!))]);
      for (const p of parsed) {
        const sub = subscriptions.get(p.providerId!);
        const expected = sub?.secret_encrypted ? deps.box.open(sub.secret_encrypted) : undefined;
        // Compared even for an unknown subscription, so timing does not tell known ids apart.
        const matches = safeEqual(expected ?? "\u0000no subscription", p.secret!);
        if (!sub || !expected || !matches) return { refused: "the notification's secret does not match its subscription" };
      }
      const outcome = emptyOutcome();
      for (const p of parsed) {
        const sub = subscriptions.get(p.providerId!)!;
        const lifecycleEvent = notification.lifecycle ? asString(valueAt(p.item, notification.lifecycle.eventPath)) : undefined;
        const one = lifecycleEvent ? await lifecycleItem(deploymentId, def, sub, req, p.item, lifecycleEvent) : await readItem(deploymentId, def, sub, req, p.item);
        if (!one) continue;
        for (const key of Object.keys(outcome) as (keyof InboundOutcome)[]) outcome[key] += one[key];
      }
      return outcome;
    },
  };
}

export type SubscriptionNotifications = ReturnType<typeof createSubscriptionNotifications>;
