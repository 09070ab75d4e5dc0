import type { Logger } from "pino";
import { periodicPass } from "../periodicPass.ts";
import type { DatabaseOutage } from "./outage.ts";
import type { Sql } from "./sql.ts";

/** How often a pass reads the WAL written: at the embedded database's ~4 MB of WAL a second at most, about one threshold's worth. */
export const CHECKPOINT_CHECK_INTERVAL_MS = 15_000;

/**
 * The checkpoints PostgreSQL's checkpointer makes, for the embedded database, where none runs.
 * PGlite runs PostgreSQL in single-user mode, and only a postmaster's checkpointer checkpoints:
 * measured, 1.6 GB of WAL written on a `max_wal_size` of 1 GB left the last checkpoint where initdb
 * made it, all 1.6 GB kept in pg_wal, and after a `kill -9` the next start replayed all of it
 * (11.4 s). A service running for weeks would fill its disk with WAL and restart ever more slowly.
 *
 * So this job applies the checkpointer's rule for WAL volume: each pass reads how much WAL was
 * written since the last checkpoint began, and checkpoints once that reaches `max_wal_size ÷ (1 +
 * checkpoint_completion_target)` (xlog.c's CheckPointSegments; 67 MB with PGLITE_SETTINGS'
 * 128 MB). The checkpoint removes or recycles the WAL before it. What a crash costs follows the WAL
 * to replay, so the timed checkpoints (`checkpoint_timeout`) are left out: an idle service writes
 * nothing to replay.
 *
 * A checkpoint holds the JavaScript thread while it writes the dirty pages and flushes the files
 * written since the last one (PGlite is synchronous): 31–90 ms at the embedded benchmark's maximum
 * rate, once per 67 MB of WAL (docs/benchmarks.md).
 */
export interface CheckpointJob {
  start(): void;
  stop(): Promise<void>;
  /** One pass: whether it checkpointed, and the WAL bytes written since the last checkpoint it found. */
  runOnce(): Promise<{ checkpointed: boolean; walBytes: number }>;
}

export interface CheckpointJobDeps {
  sql: Sql;
  logger: Logger;
  databaseOutage?: DatabaseOutage;
  /** How often a pass reads the WAL written. */
  intervalMs: number;
}

export function createCheckpointJob({ sql, logger, databaseOutage, intervalMs }: CheckpointJobDeps): CheckpointJob {
  async function runOnce() {
    const [row] = await sql.query<{ wal_bytes: string; due_bytes: string }>(
      `select pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::bigint as wal_bytes,
              (pg_size_bytes(current_setting('max_wal_size')) / (1 + current_setting('checkpoint_completion_target')::float8))::bigint as due_bytes
       from pg_control_checkpoint()`,
    );
    const walBytes = Number(row.wal_bytes);
    if (walBytes < Number(row.due_bytes)) return { checkpointed: false, walBytes };
    const started = Date.now();
    await sql.query("checkpoint");
    logger.info({ walBytes, ms: Date.now() - started }, "embedded database checkpointed");
    return { checkpointed: true, walBytes };
  }

  const passes = periodicPass(runOnce, {
    intervalMs,
    logger,
    failure: "checkpointing the embedded database failed; the next pass retries",
    outage: databaseOutage,
  });
  return { start: passes.start, stop: passes.stop, runOnce };
}
