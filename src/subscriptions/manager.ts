/**
 * The subscription manager: plans the rows wanted (ACTIVE connections × listed triggers), claims
 * due rows (queue/claim.ts) and does what each needs at the provider — create, renew, re-create,
 * delete — then records it (queue/). Only the loop and the provider calls are here; the states
 * and the statements moving rows between them are in queue/index.ts.
 *
 * No transaction is open during a provider call: the claim is a lease, and every recording is
 * guarded by it. The plan reads only what changed (queue/changes.ts: rows database triggers leave
 * for a connection, a watched resource or a trigger list written anywhere), so an idle pass costs
 * two index look-ups however many connections and resources there are; the whole table is planned
 * once, at start-up (declarations or their environment may have changed). A change is seen at once
 * when this process signals it, else within PLAN_INTERVAL (5 s) on every instance.
 */
import { type ChangeStart, subscriptionChangeReader } from "../connectors/changes.ts";
import { createTenantHostAgent } from "../net/ssrf.ts";
import { appKeyed, subscriptionUrlToken } from "./urlToken.ts";
import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import { apiOf, connectionValue } from "../connectors/api.ts";
import { connectionApi } from "../connectors/connectionApi.ts";
import { asRecord, valueAt } from "../connectors/json.ts";
import { namesTenantHost, resourceParamsOf, storedParams, tenantParams } from "../connectors/params.ts";
import { connectorEnvPrefix } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import { randomToken, type SecretBox } from "../crypto/secrets.ts";
import { bearerFetchJson } from "../oauth/provider.ts";
import type { AccessTokens } from "../connections/accessTokens.ts";
import { resourceValues, type SubscriptionDeclaration, type SubscriptionHookContext } from "../connectors/subscription.ts";
import type { SubscriptionMetrics } from "./metrics.ts";
import { type Answered, type CallTarget, callProvider, createVars, mergeAnswers, readAnswer, SubscriptionCallError, type TemplateVars } from "./provider.ts";
import type { ResourceParams, SubscriptionQueue, SubscriptionWork, WantedEvent } from "./queue/index.ts";
import type { WakeSignal } from "../events/wakeSignal.ts";

/** What `onFailed` is told when a subscription has failed for 24 h (SPEC: `switchyard.subscription_failed`). */
export interface SubscriptionFailure {
  subscriptionId: string;
  deploymentId: string;
  connectedAccountId: string;
  connector: string;
  account: string;
  resource: string;
  error: string;
}

export interface SubscriptionManagerDeps {
  queue: SubscriptionQueue;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  /** The key of an app-keyed subscription's URL token (./urlToken.ts); without it the URL has none. */
  urlKey?: Buffer;
  connectorEnv: Record<string, string | undefined>;
  /** Whether a per-tenant API base from a connection (`{instanceUrl}`) may be http (development and tests). */
  allowHttpApiBase?: boolean;
  /** Where providers send notifications: `${publicUrl}/webhooks/{deploymentId}/{connector}`. */
  publicUrl: string;
  accessTokens: Pick<AccessTokens, "fresh">;
  metrics: SubscriptionMetrics;
  signal: WakeSignal;
  /** The catalog, read on first use (the registry's `allConnectors`; tests pass a list). */
  connectors: readonly ConnectorDefinition[] | (() => readonly ConnectorDefinition[]);
  /** Logs an unreachable database once for the service: a pass that fails on it logs nothing more. */
  databaseOutage: Pick<DatabaseOutage, "noted">;
  /** A subscription failed for 24 h: emit `switchyard.subscription_failed` (app.ts decides how). */
  onFailed: (failure: SubscriptionFailure) => Promise<void> | void;
}

export interface SubscriptionManagerOptions {
  /** How often the wanted rows are planned without a signal. */
  planIntervalMs?: number;
  /** How often due rows are looked for. */
  pollIntervalMs?: number;
  /** How long a claim keeps a row from every other instance. */
  leaseMs?: number;
  /** The bound on one provider call. */
  callTimeoutMs?: number;
}

type Operation = "create" | "renew" | "recreate" | "delete";

/** Declarations whose environment placeholders are all set (Gmail without CONNECTOR_GMAIL_PUBSUB_TOPIC subscribes nothing). */
function subscribable(catalog: SubscriptionManagerDeps["connectors"], env: Record<string, string | undefined>) {
  const connectors = typeof catalog === "function" ? catalog() : catalog;
  const result = new Map<string, { def: ConnectorDefinition; decl: SubscriptionDeclaration; envVars: TemplateVars }>();
  for (const def of connectors) {
    const decl = def.declaration.subscription;
    if (!decl) continue;
    const envVars: TemplateVars = {};
    for (const [name, suffix] of Object.entries(decl.env)) {
      const value = env[`${connectorEnvPrefix(def)}${suffix}`]?.trim();
      if (value) envVars[name] = value;
    }
    if (Object.keys(envVars).length === Object.keys(decl.env).length) result.set(def.name, { def, decl, envVars });
  }
  return result;
}

export function createSubscriptionManager(deps: SubscriptionManagerDeps, options: SubscriptionManagerOptions = {}) {
  const { queue, clock, logger, box, metrics } = deps;
  const planIntervalMs = options.planIntervalMs ?? 5_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const callTimeoutMs = options.callTimeoutMs ?? 10_000;
  // Read from the catalog on first use, not when the app is built: a start validates no declaration it does not need.
  let declaredOnce: ReturnType<typeof subscribable> | undefined;
  const catalog = () => (declaredOnce ??= subscribable(deps.connectors, deps.connectorEnv));
  const declared = {
    get: (connector: string) => catalog().get(connector),
    has: (connector: string) => catalog().has(connector),
    values: () => catalog().values(),
  };
  // Tenant-named hosts are dialled only at the address the guard checked (src/net/ssrf.ts).
  const tenantHosts = createTenantHostAgent(callTimeoutMs);
  let wantedOnce: WantedEvent[] | undefined;
  const wanted = () =>
    (wantedOnce ??= [...declared.values()].flatMap(({ def, decl }) =>
      decl.resources.flatMap(({ resource, triggers }) =>
        Object.entries(triggers).flatMap(([trigger, events]) => events.map((event) => ({ connector: def.name, trigger, resource, event, param: decl.onlyWithParam ?? "" }))),
      ),
    ));
  let resourceParamsOnce: ResourceParams | undefined;
  const resourceParams = () =>
    (resourceParamsOnce ??= Object.fromEntries(
      [...declared.values()].map(({ def }) => [def.name, resourceParamsOf(def.declaration.params).map((p) => ({ name: p.name, optional: p.optional, ...(p.default ? { default: p.default } : {}) }))]),
    ));

  /** The row as its calls see it: the connection's tenant params, then its watched resource's (`{project_id}`). */
  function effective(row: SubscriptionWork): SubscriptionWork {
    const def = declared.get(row.connector)?.def;
    if (!def) return row;
    return { ...row, params: { ...tenantParams(def.declaration.params, row.params), ...(row.resourceParams ?? {}) } };
  }

  /** Where the account's calls go and how its token goes with them: the connector's declared api section. */
  async function target(work: SubscriptionWork, def: ConnectorDefinition) {
    const { api, base: apiBase } = connectionApi(def, deps.connectorEnv, work, { allowHttp: deps.allowHttpApiBase ?? false });
    // A declared `base` (Figma's ../v2) is resolved against the API base as a directory, so an overridden API URL keeps its prefix.
    const relative = def.declaration.subscription?.base;
    const base = relative ? new URL(relative, apiBase.href.replace(/\/*$/, "/")) : apiBase;
    const guardHost = !deps.allowHttpApiBase && namesTenantHost(def.declaration.params);
    return { api, base, accessToken: await deps.accessTokens.fresh(work.connectedAccountId), timeoutMs: callTimeoutMs, guardHost, tenantHosts };
  }

  /** The connection's params, then the connector's declared placeholders (`api.placeholders`: params first, then its metadata). */
  function connectionVars(work: SubscriptionWork, def: ConnectorDefinition): TemplateVars {
    const vars: TemplateVars = storedParams(work.params);
    for (const [name, path] of Object.entries(apiOf(def.declaration).placeholders)) {
      const value = connectionValue(work, name, path);
      if (value !== undefined) vars[name] = value;
    }
    return vars;
  }

  function baseVars(work: SubscriptionWork, envVars: TemplateVars): TemplateVars {
    const notificationUrl = `${deps.publicUrl}/webhooks/${encodeURIComponent(work.deploymentId)}/${work.connector}`;
    const { decl, def } = declared.get(work.connector) ?? {};
    return {
      ...envVars,
      ...(def ? connectionVars(work, def) : {}),
      ...(decl ? resourceValues(decl, work.resource) : {}),
      notificationUrl,
      subscriptionUrl: `${notificationUrl}?subscription=${encodeURIComponent(work.id)}${deps.urlKey && appKeyed(decl?.webhook?.key) ? `&token=${subscriptionUrlToken(deps.urlKey, work.id)}` : ""}`,
      events: work.events,
      resource: work.resource,
      externalId: work.externalId,
      ...(work.providerId ? { providerId: work.providerId } : {}),
      ...(work.providerResourceId ? { providerResourceId: work.providerResourceId } : {}),
    };
  }

  function log(work: SubscriptionWork, operation: Operation, outcome: "success" | "failure", extra: Record<string, unknown> = {}) {
    metrics.operation(work.connector, operation, outcome);
    // Ids and outcome only: never a token or the subscription's secret.
    logger[outcome === "success" ? "info" : "warn"](
      { subscriptionId: work.id, deploymentId: work.deploymentId, connector: work.connector, account: work.account, resource: work.resource, operation, outcome, ...extra },
      `provider subscription ${operation} ${outcome === "success" ? "done" : "failed"}`,
    );
  }

  /** A hook's requests: the connection's API base and credential, as declared calls have. */
  function hookRequest(to: CallTarget): SubscriptionHookContext["request"] {
    return (method, path, form) => callProvider({ method, path: path.replaceAll("{", "%7B") }, {}, to, form);
  }

  async function hookCreate(decl: SubscriptionDeclaration, vars: TemplateVars, to: CallTarget): Promise<Answered> {
    const made = await decl.hooks!.create({ request: hookRequest(to), vars });
    return { providerId: made.providerId, providerResourceId: made.providerResourceId, expiresAt: null, secret: undefined };
  }

  /** Creates a new subscription at the provider and records it; an old one (re-create) is deleted afterwards. */
  async function create(replacing: SubscriptionWork, operation: Operation) {
    const { def, decl, envVars } = declared.get(replacing.connector)!;
    let work = replacing;
    if (decl.replace === "delete_first" && work.providerId) {
      // One per watched item at the provider (Box): the old one goes first (already gone is fine);
      // should the create then fail, the row still names the old id, whose delete answers 404 next time.
      await deleteAt(work, envVars);
      work = { ...work, providerId: null, providerResourceId: null };
    }
    const secret = decl.secret === "generated" ? randomToken(24) : undefined;
    const vars = createVars({ ...baseVars(work, envVars), ...(secret ? { secret } : {}) }, decl, clock.now());
    const to = await target(work, def);
    // The provider hands the new subscription its secret while the create is in flight: room for it, once.
    if (decl.secret === "handshake" && !(await queue.awaitHandshake(work))) return;
    // Code where one declared call cannot say it (Twilio's numbers), else the declared create call.
    const answer = decl.hooks ? {} : await callProvider(decl.create!, vars, to);
    let answered = decl.hooks ? await hookCreate(decl, vars, to) : readAnswer(decl, answer);
    // A declared id that is not in the answer (Jira's registration errors answer 200): nothing was made.
    if (decl.create && decl.answer.idPath && !answered.providerId) throw new SubscriptionCallError(`${decl.create.method} ${decl.create.path} answered without ${decl.answer.idPath}`, 200);
    const providerId = answered.providerId ?? work.id;
    if (decl.afterCreate) {
      try {
        answered = mergeAnswers(answered, readAnswer(decl, await callProvider(decl.afterCreate, { ...vars, providerId }, to)));
        // The secret the provider was to answer is what verifies its events: without it the subscription is useless.
        if (decl.secret === "answer" && !answered.secret) throw new SubscriptionCallError(`${decl.afterCreate.method} ${decl.afterCreate.path} answered without ${decl.answer.secretPath}`, 200);
      } catch (error) {
        // Half made: what create made must not stay behind, unsigned, at the provider.
        await deleteAt({ ...work, providerId, providerResourceId: answered.providerResourceId ?? null }, envVars).catch(() => undefined);
        throw error;
      }
    }
    // An expiry the create does not answer (Jira's webhooks: 30 days) is the lifetime asked for.
    const expiresAt = answered.expiresAt ?? (decl.answer.expiresPath ? new Date(String(vars.expiresAt)) : null);
    const kept = secret ?? answered.secret;
    // A subscription made again (a channel replaced before it expires) keeps its position: no read for a new one.
    const start = work.positionHeld ? undefined : subscriptionChangeReader(def.declaration)?.start;
    const cursor = start ? await startCursor(work, start, to, answer) : undefined;
    const recorded = await queue.recordCreated(work, {
      cursor,
      providerId,
      providerResourceId: answered.providerResourceId ?? null,
      secretSealed: kept ? box.seal(kept) : null,
      expiresAt,
      checkAt: nextCheck(decl),
    });
    const made = { ...work, providerId, providerResourceId: answered.providerResourceId ?? null };
    if (!recorded) {
      // The lease was lost (disconnected, or taken over meanwhile): what was just made must not leak.
      await deleteAt(made, envVars).catch(() => undefined);
      return;
    }
    log(work, operation, "success", { providerId, expiresAt: expiresAt?.toISOString() ?? null });
    if (work.providerId && work.providerId !== providerId) {
      await deleteAt(work, envVars).catch((error) => logger.warn({ subscriptionId: work.id, connector: work.connector, err: String(error) }, "could not delete the replaced provider subscription"));
    }
  }

  /** The change reader's first position; a failure only logs: the reader then takes it at the first notification. */
  async function startCursor(work: SubscriptionWork, start: ChangeStart, to: { base: URL; accessToken: string }, answer: Record<string, unknown>) {
    try {
      return await start({ fetchJson: bearerFetchJson(to.base.href.replace(/\/$/, ""), to.accessToken), resource: work.resource, answer, now: clock.now() });
    } catch (error) {
      logger.warn({ subscriptionId: work.id, connector: work.connector, err: String(error) }, "could not take the provider's current position; the first notification takes it");
      return undefined;
    }
  }

  /** Deletes the row's subscription at the provider; a 404/410 means it is already gone. */
  async function deleteAt(work: SubscriptionWork, envVars: TemplateVars) {
    if (!work.providerId) return;
    const { def, decl } = declared.get(work.connector) ?? {};
    if (!def || !decl) return;
    try {
      const to = await target(work, def);
      if (decl.hooks) await decl.hooks.delete({ request: hookRequest(to), vars: baseVars(work, envVars) });
      else await callProvider(decl.delete!, baseVars(work, envVars), to);
    } catch (error) {
      if (!(error instanceof SubscriptionCallError && error.gone)) throw error;
    }
  }

  async function remove(claimed: SubscriptionWork) {
    const work = effective(claimed);
    let error: string | null = null;
    try {
      await deleteAt(work, declared.get(work.connector)?.envVars ?? {});
      if (work.providerId) log(work, "delete", "success");
    } catch (e) {
      // Deleted in our books anyway: the account is gone or no longer wants it, and nothing would retry it better.
      error = `could not delete it at the provider: ${(e as Error).message}`;
      log(work, "delete", "failure", { error });
    }
    await queue.recordDeleted(work, error);
  }

  /** When a subscription that never expires is looked up next (the declared check); null without one. */
  const nextCheck = (decl: SubscriptionDeclaration) => (decl.check ? new Date(clock.now().getTime() + decl.check.everySeconds * 1000) : null);

  /**
   * A webhook that never expires is looked up (the declared check): still there, it is due at the
   * next check; a 404/410, or its absence from a declared list, makes it again (the old id is not
   * deleted: it is gone); listed in a declared `gone` state, it is made again and the old one
   * deleted. Counted as a renewal.
   */
  async function check(work: SubscriptionWork) {
    const { decl, envVars, def } = declared.get(work.connector)!;
    const { method, path, list } = decl.check!;
    try {
      const answer = await callProvider(decl.check!, baseVars(work, envVars), await target(work, def));
      if (list) {
        const listed = valueAt(answer, list.itemsPath);
        // An answer without the list says nothing about the webhook: a failure, never a reason to make a second one.
        if (!Array.isArray(listed)) throw new SubscriptionCallError(`${method} ${path} answered without ${list.itemsPath}`, 200);
        const found = listed.map(asRecord).find((item) => item && String(valueAt(item, list.idPath) ?? "") === work.providerId);
        // Not listed: gone at the provider, nothing to delete.
        if (!found) return create({ ...work, providerId: null }, "recreate");
        // Listed but sending nothing (ClickUp's suspended webhook): a new one, then this one deleted.
        const state = list.gone ? valueAt(found, list.gone.path) : undefined;
        if (list.gone && typeof state === "string" && list.gone.values.includes(state)) return create(work, "recreate");
      }
      if (await queue.recordRenewed(work, null, nextCheck(decl))) log(work, "renew", "success", { providerId: work.providerId, checked: true });
    } catch (error) {
      if (error instanceof SubscriptionCallError && error.gone) return create({ ...work, providerId: null }, "recreate");
      throw error;
    }
  }

  async function renew(work: SubscriptionWork) {
    const { decl, envVars, def } = declared.get(work.connector)!;
    if (!decl.renew && decl.check && !work.expiresAt) return check(work);
    if (!decl.renew) return create(work, "recreate");
    try {
      const vars = createVars(baseVars(work, envVars), decl, clock.now());
      const answered = readAnswer(decl, await callProvider(decl.renew, vars, await target(work, def)));
      // Providers that answer no expiry on renew keep the one asked for.
      const expiresAt = answered.expiresAt ?? new Date(String(vars.expiresAt));
      if (await queue.recordRenewed(work, expiresAt)) log(work, "renew", "success", { providerId: work.providerId, expiresAt: expiresAt.toISOString() });
    } catch (error) {
      if (error instanceof SubscriptionCallError && error.gone) return create({ ...work, providerId: null }, "recreate");
      throw error;
    }
  }

  async function work(claimed: SubscriptionWork) {
    const row = effective(claimed);
    if (!declared.has(row.connector) || row.events.length === 0 || row.accountStatus !== "ACTIVE") return remove(row);
    const operation: Operation = !row.providerId ? "create" : row.status === "PENDING" ? "recreate" : "renew";
    try {
      if (operation === "renew") await renew(row);
      else await create(row, operation);
    } catch (error) {
      const message = (error as Error).message;
      log(row, operation, "failure", { error: message });
      const { becameFailed } = await queue.recordFailed(row, message);
      if (becameFailed) {
        await Promise.resolve(
          deps.onFailed({
            subscriptionId: row.id,
            deploymentId: row.deploymentId,
            connectedAccountId: row.connectedAccountId,
            connector: row.connector,
            account: row.account,
            resource: row.resource,
            error: message,
          }),
        ).catch((e) => logger.warn({ err: e, subscriptionId: row.id }, "could not emit subscription_failed"));
      }
    }
  }

  const PLAN_BATCH = 500;
  /** Every connection, a page at a time; what changed before it began is covered by it. */
  async function planAll() {
    const upTo = await queue.lastChange();
    for (let after = ""; ; ) {
      const ids = await queue.accountsAfter(after, PLAN_BATCH);
      if (ids.length === 0) break;
      await queue.plan(wanted(), resourceParams(), ids);
      after = ids[ids.length - 1];
    }
    await queue.forgetChangesUpTo(upTo);
  }

  /** The connections that changed since the last plan, and only those. */
  async function planChanged() {
    for (let round = 0; round < 100; round++) {
      const changes = await queue.pendingChanges(PLAN_BATCH);
      if (changes.length === 0) return;
      const ids = await queue.accountsChanged(changes);
      for (let i = 0; i < ids.length; i += PLAN_BATCH) await queue.plan(wanted(), resourceParams(), ids.slice(i, i + PLAN_BATCH));
      await queue.forgetChanges(changes.map((c) => c.id));
    }
  }

  let lastPlan = 0;
  let planWanted = true;
  let plannedAll = false;
  async function runOnce(force = false): Promise<number> {
    const now = clock.now().getTime();
    if (force || planWanted || now - lastPlan >= planIntervalMs) {
      planWanted = false;
      lastPlan = now;
      if (!plannedAll) {
        await planAll();
        plannedAll = true;
      } else await planChanged();
    }
    let done = 0;
    for (let round = 0; round < 50; round++) {
      const due = await queue.claim(leaseMs, 20);
      if (due.length === 0) break;
      await Promise.all(due.map((row) => work(row)));
      done += due.length;
    }
    return done;
  }

  /** Deletes the live subscriptions of `claimed` at the provider now, within `boundMs`, and marks them DELETED. */
  async function removeAll(claimed: SubscriptionWork[], boundMs: number) {
    const all = Promise.all(claimed.map((row) => remove(row)));
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, boundMs).unref())]);
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  let unsubscribe: (() => void) | undefined;
  const tick = () => {
    if (stopped || running) return;
    running = runOnce()
      .catch((error) => deps.databaseOutage.noted(error) || logger.warn({ err: error }, "provider subscription pass failed"))
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, pollIntervalMs);
      });
  };

  return {
    /** Plans (when due, or forced) and works every due row; returns how many rows were worked. */
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      unsubscribe = deps.signal.subscribe(() => {
        planWanted = true;
        clearTimeout(timer);
        timer = setTimeout(tick, 0);
      });
      tick();
    },
    async stop() {
      stopped = true;
      unsubscribe?.();
      clearTimeout(timer);
      await running;
    },
    /**
     * Deletes the account's subscriptions at the provider now (best effort, at most `boundMs`) and
     * marks them DELETED — before its tokens are forgotten (a disconnect).
     */
    async deleteForConnection(connectedAccountId: string, boundMs = 10_000): Promise<void> {
      await removeAll(await queue.claimForAccount(connectedAccountId, leaseMs), boundMs);
    },
    /** Connections or a trigger list changed in this process: plan at once. */
    changed: () => deps.signal.notify(),
    /** Makes a live subscription due now (an operator's Retry now); false when there is none by that id. */
    async retryNow(id: string): Promise<boolean> {
      const due = await queue.retryNow(id);
      if (due) deps.signal.notify();
      return due;
    },
  };
}

export type SubscriptionManager = ReturnType<typeof createSubscriptionManager>;
