/**
 * The polling loop: each tick schedules connections that became polled, claims the due ones
 * (the store's poll statements), reads each with its connector's reader — the declared one (reader.ts) or a code change
 * reader (Gmail's history, through the inbound path) — records the events through the webhook
 * path's recording (deduplicated, forwarded when listed) and schedules the next read. The loop only
 * loops: what moves rows is the connection store's poll statements (connections/store/poll*.ts),
 * what reads a provider is in reader.ts.
 */
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Clock } from "../clock.ts";
import { allConnectors } from "../connectors/registry.ts";
import type { ConnectorDefinition, NormalizedEvent } from "../connectors/types.ts";
import type { InboundSecrets } from "../credentials/inboundSecrets.ts";
import type { DiskSpace } from "../db/diskSpace.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import type { Sql } from "../db/sql.ts";
import type { InboundEvents } from "../forwarding/inbound.ts";
import { apiOf, fillPath } from "../connectors/api.ts";
import { connectionApi } from "../connectors/connectionApi.ts";
import { ProviderUnavailableError } from "../oauth/provider.ts";
import { type AccessTokens, ReauthRequiredError } from "../connections/accessTokens.ts";
import type { LifecycleEvents } from "../connections/lifecycle.ts";
import { storableText } from "../text/storable.ts";
import { type ClaimedConnection, createPollSchedule, type PollAttempt } from "../connections/store/index.ts";
import { apiFetch, type PollFetch, readPolledTrigger } from "./reader.ts";
import { polledPairs, type PollTarget, pollTargets } from "./targets.ts";

/** How a poll ended, the `outcome` label of switchyard_polls_total. */
export type PollOutcome = "ok" | "error" | "reauth_required" | "skipped";

export interface PollMetrics {
  polled(connector: string, outcome: PollOutcome): void;
}

/** switchyard_polls_total{connector,outcome} and the gauge of due connections (read from the database at scrape time). */
export function registerPollMetrics(registry: Registry, countDue: () => Promise<number>, onError: (error: unknown) => void): PollMetrics {
  const polls = new Counter({
    name: "switchyard_polls_total",
    help: "Connections read by the poller, by connector and outcome (ok, error, reauth_required, skipped: the provider pushes instead)",
    labelNames: ["connector", "outcome"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "switchyard_polls_due",
    help: "Connections whose poll is due now, across all instances (stays near 0 while the pollers keep up)",
    registers: [registry],
    async collect() {
      try {
        this.set(await countDue());
      } catch (error) {
        onError(error);
      }
    },
  });
  return { polled: (connector, outcome) => polls.inc({ connector, outcome }) };
}

export interface PollerDeps {
  /** The pool the schedule's statements run on. */
  sql: Sql;
  clock: Clock;
  logger: Logger;
  connectorEnv: Record<string, string | undefined>;
  /** Whether a per-tenant API base from a connection (`{instanceUrl}`) may be http (development and tests). */
  allowHttpApiBase?: boolean;
  accessTokens: Pick<AccessTokens, "fresh">;
  inboundEvents: Pick<InboundEvents, "acceptEvents" | "pollAccount">;
  /** Whether a deployment has a push secret for a code-read connector (then the push drives the reads). */
  inboundSecrets: Pick<InboundSecrets, "get">;
  databaseOutage: Pick<DatabaseOutage, "noted">;
  /** Where switchyard.polling_failed is emitted (connections/lifecycle.ts). */
  lifecycle: Pick<LifecycleEvents, "emitFor">;
  /**
   * The embedded database's disk: while it is low nothing is read (what a poll reads is stored), as
   * inbound webhooks are refused; connections stay due and are read once space is freed.
   */
  diskSpace: Pick<DiskSpace, "low">;
  metrics?: PollMetrics;
  /** The catalog (tests pass their own). */
  connectors?: readonly ConnectorDefinition[];
}

export interface PollerOptions {
  /** POLL_INTERVAL: how often each connection is read (raised to its connector's declared minimum). */
  intervalMs: number;
  /** POLLING_FAILED_AFTER: how long a run of failed polls lasts before switchyard.polling_failed (default 24 h). */
  failedAfterMs?: number;
  /** Connections claimed per statement. */
  batchSize?: number;
  /** How long a claimed connection is this instance's; longer than a poll of maxPages slow pages. */
  leaseMs?: number;
  /** Connections read at once. */
  concurrency?: number;
  /** How often the loop looks for due connections; a sixth of the interval, between 25 ms and 10 s, by default. */
  tickMs?: number;
}

export interface RoundResult {
  /** Connections newly scheduled. */
  scheduled: number;
  /** Connections read. */
  polled: number;
  /** Events newly recorded. */
  recorded: number;
}

export interface Poller {
  start(): void;
  stop(): Promise<void>;
  /** One round: schedule, then claim and read what is due (several batches while they come full). */
  runOnce(): Promise<RoundResult>;
}

/** Each next read is moved up to this share of the interval later, so connections read together drift apart. */
const JITTER = 0.1;
/** Batches in one round at most: a backlog is worked through over the next ticks, and stop() never waits long. */
const MAX_BATCHES_PER_ROUND = 20;
const DEFAULT_LEASE_MS = 5 * 60_000;

const DEFAULT_FAILED_AFTER_MS = 24 * 3_600_000;
/** How much of a failure's message the polling health keeps. */
const ERROR_MESSAGE_LIMIT = 500;

/** The stored positions of a connection's declared readers: trigger → position (its change_position, JSON). */
function positions(cursor: string | null): Record<string, string> {
  try {
    const parsed: unknown = cursor ? JSON.parse(cursor) : {};
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function createPoller(deps: PollerDeps, options: PollerOptions): Poller {
  const { clock, logger, metrics } = deps;
  const targets = pollTargets(deps.connectors ?? allConnectors(), options.intervalMs);
  // The schedule's statements are the connection store's (connections/store/poll*.ts): the poller moves no row itself.
  const pairs = polledPairs(targets);
  const queue = createPollSchedule({ sql: deps.sql, pairs: () => pairs });
  const batchSize = options.batchSize ?? 50;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const concurrency = options.concurrency ?? 4;
  const failedAfterMs = options.failedAfterMs ?? DEFAULT_FAILED_AFTER_MS;
  const tickMs = options.tickMs ?? Math.min(10_000, Math.max(25, Math.round(options.intervalMs / 6)));

  /**
   * A token-bearing GET under the connection's declared API base (a per-tenant one filled from its
   * params and metadata), the token in the declared auth style; a 401 refreshes the token once
   * (connections/accessTokens.ts) and asks again. A connection with no usable base fails its read (logged).
   */
  function fetcherFor(connection: ClaimedConnection, def: ConnectorDefinition): PollFetch {
    const { api, base } = connectionApi(def, deps.connectorEnv, connection, { allowHttp: deps.allowHttpApiBase ?? false });
    let token: Promise<string> | undefined;
    let refreshed = false;
    return async (target, headers) => {
      token ??= deps.accessTokens.fresh(connection.id);
      try {
        return await apiFetch(api, base, await token)(target, headers);
      } catch (error) {
        if (!(error instanceof ProviderUnavailableError) || error.status !== 401 || refreshed) throw error;
        refreshed = true;
        token = deps.accessTokens.fresh(connection.id, { forceRefresh: true });
        return apiFetch(api, base, await token)(target, headers);
      }
    };
  }

  /** Reads the listed polled triggers of a connection with the declared readers; returns the positions to store. */
  async function readDeclared(connection: ClaimedConnection, target: PollTarget): Promise<{ cursor: string; recorded: number }> {
    const declared = target.def.declaration.polling!.triggers;
    const api = apiOf(target.def.declaration);
    const fetch = fetcherFor(connection, target.def);
    const stored = positions(connection.cursor);
    const events: NormalizedEvent[] = [];
    for (const trigger of connection.triggers) {
      const spec = declared[trigger];
      // A path naming a per-account value (a group, a user id) is filled from the connection.
      const request = { ...spec.request, path: fillPath(api, spec.request.path, connection) };
      const read = await readPolledTrigger(trigger, { ...spec, request }, stored[trigger], fetch, clock.now());
      events.push(...read.events);
      stored[trigger] = read.cursor;
    }
    const outcome = await deps.inboundEvents.acceptEvents(connection.deploymentId, target.def, events, { connection: { reader: connection.id, account: connection } });
    return { cursor: JSON.stringify(stored), recorded: outcome.recorded };
  }

  async function poll(connection: ClaimedConnection): Promise<number> {
    const target = targets.get(connection.connector)!;
    let outcome: PollOutcome = "ok";
    let cursor: string | null = null;
    let recorded = 0;
    let failure: string | null = null;
    try {
      if (target.def.declaration.polling) {
        ({ cursor, recorded } = await readDeclared(connection, target));
      } else if (target.def.inbound.reads !== "queued" && (await deps.inboundSecrets.get(connection.deploymentId, target.def))?.webhookSecret) {
        outcome = "skipped";
      } else {
        // A code change reader (Gmail's history, Dropbox's list_folder): it reads from, and moves, the
        // connection's position itself. Gmail's pushes read it themselves; Dropbox's only nudge (connections/store/pollNudge.ts).
        recorded = (await deps.inboundEvents.pollAccount(connection.deploymentId, target.def, connection)).recorded;
      }
    } catch (error) {
      failure = storableText((error as Error)?.message || String(error)).slice(0, ERROR_MESSAGE_LIMIT);
      if (error instanceof ReauthRequiredError) outcome = "reauth_required";
      else {
        outcome = "error";
        if (!deps.databaseOutage.noted(error)) {
          logger.warn({ err: error, connectedAccountId: connection.id, connector: connection.connector }, "polling a connection failed; it is read again next interval");
        }
      }
    }
    const now = clock.now();
    const next = new Date(now.getTime() + target.intervalMs * (1 + Math.random() * JITTER));
    // A skipped read is no attempt: the provider pushes instead, and the health keeps what it had.
    const attempt: PollAttempt = outcome === "skipped" ? null : { at: now, error: failure };
    const { announce } = await queue.record(connection.id, connection, next, cursor, attempt, new Date(now.getTime() - failedAfterMs));
    metrics?.polled(connection.connector, outcome);
    if (announce) {
      logger.warn({ connectedAccountId: connection.id, connector: connection.connector, failedAfterMs }, "polling a connection has failed for POLLING_FAILED_AFTER");
      await deps.lifecycle.emitFor(connection.id, "polling_failed", { code: "polling_failed", message: failure! });
    }
    return recorded;
  }

  async function pollAll(claimed: ClaimedConnection[]): Promise<number> {
    let recorded = 0;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        // Not `recorded += await …`: that reads `recorded` before the await and loses the other workers' counts.
        const count = await poll(claimed[next++]);
        recorded += count;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return recorded;
  }

  async function round(): Promise<RoundResult> {
    if (deps.diskSpace.low() !== undefined) return { scheduled: 0, polled: 0, recorded: 0 };
    const result: RoundResult = { scheduled: await queue.schedule(clock.now()), polled: 0, recorded: 0 };
    for (let batch = 0; batch < MAX_BATCHES_PER_ROUND; batch++) {
      const { claimed, unscheduled } = await queue.claim(clock.now(), leaseMs, batchSize);
      result.recorded += await pollAll(claimed);
      result.polled += claimed.length;
      if (claimed.length + unscheduled < batchSize) break;
    }
    return result;
  }

  let running: Promise<RoundResult> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  const runOnce = () => (running ??= round().finally(() => (running = undefined)));
  const tick = () => {
    timer = setTimeout(() => {
      void runOnce()
        .catch((error) => deps.databaseOutage.noted(error) || logger.warn({ err: error }, "poll round failed"))
        .finally(() => started && tick());
    }, tickMs);
  };

  return {
    start() {
      if (started) return;
      started = true;
      tick();
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
    runOnce,
  };
}
