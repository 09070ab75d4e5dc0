import type { Logger } from "pino";
import type { Clock } from "../clock.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import type { Sql } from "../db/sql.ts";
import { periodicPass } from "../periodicPass.ts";

/**
 * RETENTION_DAYS: deletes what is older than the retention period, in the background, in small
 * batches, so a backlog of a million old rows never becomes one long transaction that holds locks
 * or bloats WAL while inbound webhooks are being written.
 *
 * - Events received before the cutoff go with their deliveries and attempts (ON DELETE CASCADE,
 *   both through indexes) — except an event with a PENDING delivery: a delivery held for weeks by
 *   a pause is still owed to the operator.
 * - Console sessions once expired; connect sessions a day after they expired (an end user who
 *   reopens a stale link that day still reads "expired" rather than "unknown").
 * - Invitations once expired: an expired one admits nobody and is listed nowhere (inviting the
 *   address again creates a fresh one). Accepted ones are already gone: sign-up deletes them.
 * - Replay-check digests (inbound_body_digest) past their connector's replay window, whatever
 *   RETENTION_DAYS says: such a row counts for nothing (the next claim of its bytes takes it over,
 *   ../delivery/queue/enqueue.ts), so it goes here rather than in the accepting statement, where
 *   pruning cost every batch of inbound events a probe of its own. Between two passes the table holds
 *   at most one interval more than its windows' worth of traffic (GitHub's is 3 days).
 *
 * Each batch walks an index from its oldest end (session(expires_at), connect_session(expires_at);
 * for events, the event log's own (deployment_id, received_at, id) index, one deployment after the
 * other, so the event row carries no index of its own for retention: one index entry fewer per event
 * on the forwarding path) and skips rows another instance's pruner holds, so several instances prune
 * side by side without waiting on each other. A deployment's next batch goes on after the last row
 * its batch deleted: the old events it keeps (still owed a delivery) are walked once a pass, not
 * once a batch (bench/retention). A deployment's digests are read connector by connector through
 * their (deployment_id, connector, seen_at) index. The invitation
 * table has no such index: it holds the addresses people typed into the Members page, a few rows
 * per organization, so its batches read the table.
 */
export interface RetentionOptions {
  /** How often a pass starts. */
  intervalMs?: number;
  /** Rows per DELETE statement. */
  batchSize?: number;
  /** A breather between batches, for the statements of live traffic. */
  pauseMs?: number;
}

export interface RetentionJob {
  start(): void;
  /** Stops after the batch in progress. */
  stop(): Promise<void>;
  /** One whole pass; returns how many rows of each kind were deleted. */
  runOnce(): Promise<PruneCounts>;
}

export interface PruneCounts {
  events: number;
  sessions: number;
  connectSessions: number;
  invitations: number;
  bodyDigests: number;
}

/** What pruning needs: the statements, RETENTION_DAYS, and where to say what it deleted. */
export interface RetentionDeps {
  sql: Sql;
  retentionDays: number;
  logger: Logger;
  /** What "older than" is measured from: each pass reads it once (tests move a fake one). */
  clock: Clock;
  /** Logs an unreachable database once for the service (a pass that fails on it logs nothing more). */
  databaseOutage?: DatabaseOutage;
  /**
   * A connector's replay window in seconds (its webhook's `replayWindowSeconds`); undefined for one
   * that checks no replays (or is no longer in the catalog): its digests count for nothing, and all go.
   */
  replayWindowSeconds: (connector: string) => number | undefined;
}

export function createRetentionJob(
  { sql, retentionDays, logger, clock, databaseOutage, replayWindowSeconds }: RetentionDeps,
  options: RetentionOptions = {},
): RetentionJob {
  const intervalMs = options.intervalMs ?? 10 * 60_000;
  const batchSize = options.batchSize ?? 500;
  const pauseMs = options.pauseMs ?? 20;
  const pause = () => new Promise((resolve) => setTimeout(resolve, pauseMs));

  // $1: rows per batch; $2: now, from the clock (timestamps are stored in UTC). Each names its own cutoff.
  // One deployment's batch: $3 the deployment, $4 retention days, ($5, $6) the last row deleted before it.
  const oldEvents = `with gone as (
       delete from trigger_event where id in (
         select e.id from trigger_event e
         where e.deployment_id = $3 and e.received_at < $2::timestamp - ($4::int * interval '1 day')
           and (e.received_at, e.id) > ($5::timestamp, $6::text)
           and not exists (select 1 from delivery d where d.event_id = e.id and d.status = 'PENDING')
         order by e.received_at, e.id
         limit $1
         for update of e skip locked)
       returning received_at, id)
     select count(*) as n, (array_agg(received_at::text order by received_at desc, id desc))[1] as received_at,
            (array_agg(id order by received_at desc, id desc))[1] as id
     from gone`;
  // The connectors $1 (a deployment) holds digests for, from the primary key's index one connector at
  // a time (a loose index scan) rather than from every one of its rows.
  const digestConnectors = `with recursive c(connector) as (
       select min(connector) from inbound_body_digest where deployment_id = $1
       union all
       select (select min(d.connector) from inbound_body_digest d where d.deployment_id = $1 and d.connector > c.connector)
       from c where c.connector is not null)
     select connector from c where connector is not null`;
  // One batch of a deployment's ($3) digests for a connector ($4) seen longer ago than its window ($5 seconds).
  const expiredDigests = `with gone as (
       delete from inbound_body_digest where deployment_id = $3 and connector = $4 and digest in (
         select digest from inbound_body_digest
         where deployment_id = $3 and connector = $4 and seen_at < $2::timestamp - make_interval(secs => $5)
         order by seen_at limit $1 for update skip locked)
       returning 1)
     select count(*) as n from gone`;
  const statements: Record<Exclude<keyof PruneCounts, "events" | "bodyDigests">, string> = {
    sessions: `delete from session where id in (
       select id from session where expires_at < $2::timestamp order by expires_at limit $1 for update skip locked)`,
    connectSessions: `delete from connect_session where id in (
       select id from connect_session where expires_at < $2::timestamp - interval '1 day'
       order by expires_at limit $1 for update skip locked)`,
    invitations: `delete from invitation where id in (
       select id from invitation where expires_at < $2::timestamp order by expires_at limit $1 for update skip locked)`,
  };

  /** One deployment's old events, batch after batch, each going on after the last row the one before deleted. */
  async function pruneEvents(deploymentId: string, now: string): Promise<number> {
    let total = 0;
    let after = { receivedAt: "-infinity", id: "" };
    for (;;) {
      const [batch] = await sql.query<{ n: string | number; received_at: string | null; id: string | null }>(oldEvents, [
        batchSize,
        now,
        deploymentId,
        retentionDays,
        after.receivedAt,
        after.id,
      ]);
      const deleted = Number(batch.n);
      total += deleted;
      if (deleted < batchSize || !batch.received_at || !batch.id || passes.stopping()) return total;
      after = { receivedAt: batch.received_at, id: batch.id };
      await pause();
    }
  }

  /** One deployment's digests past their connector's window, connector by connector, batch after batch. */
  async function pruneBodyDigests(deploymentId: string, now: string): Promise<number> {
    let total = 0;
    for (const { connector } of await sql.query<{ connector: string }>(digestConnectors, [deploymentId])) {
      for (;;) {
        const [batch] = await sql.query<{ n: string | number }>(expiredDigests, [batchSize, now, deploymentId, connector, replayWindowSeconds(connector) ?? 0]);
        const deleted = Number(batch.n);
        total += deleted;
        if (passes.stopping()) return total;
        if (deleted < batchSize) break;
        await pause();
      }
    }
    return total;
  }

  /** Every deployment's old events and expired digests, a thousand deployments read at a time. */
  async function pruneDeployments(now: string): Promise<Pick<PruneCounts, "events" | "bodyDigests">> {
    const counts = { events: 0, bodyDigests: 0 };
    let afterDeployment = "";
    for (;;) {
      const deployments = await sql.query<{ id: string }>(`select id from deployment where id > $1 order by id limit 1000`, [afterDeployment]);
      for (const { id } of deployments) {
        counts.events += await pruneEvents(id, now);
        counts.bodyDigests += await pruneBodyDigests(id, now);
        if (passes.stopping()) return counts;
      }
      if (deployments.length < 1000) return counts;
      afterDeployment = deployments[deployments.length - 1].id;
    }
  }

  async function prune(kind: keyof typeof statements, now: string): Promise<number> {
    let total = 0;
    for (;;) {
      const rows = await sql.query<{ n: string | number }>(`with gone as (${statements[kind]} returning 1) select count(*) as n from gone`, [batchSize, now]);
      const deleted = Number(rows[0]?.n ?? 0);
      total += deleted;
      if (deleted < batchSize || passes.stopping()) return total;
      await pause();
    }
  }

  async function runOnce(): Promise<PruneCounts> {
    const now = clock.now().toISOString();
    const counts: PruneCounts = {
      ...(await pruneDeployments(now)),
      sessions: await prune("sessions", now),
      connectSessions: await prune("connectSessions", now),
      invitations: await prune("invitations", now),
    };
    if (Object.values(counts).some((n) => n > 0)) {
      logger.info({ ...counts, retentionDays }, "retention: old rows deleted");
    }
    return counts;
  }

  const passes = periodicPass(runOnce, {
    intervalMs,
    // Not at the very start: start-up (migrations, the first claims) has the database first.
    firstDelayMs: Math.min(intervalMs, 30_000),
    logger,
    failure: "retention pass failed; the next one retries",
    outage: databaseOutage,
  });
  return { start: passes.start, stop: passes.stop, runOnce };
}
