import type { Logger } from "pino";
import { periodicPass } from "../periodicPass.ts";
import type { Sql } from "./sql.ts";

/**
 * The embedded database's autovacuum. PGlite runs PostgreSQL in single-user mode: `autovacuum`
 * reads "on", but there is no launcher, so nothing is ever vacuumed (measured: 20,000 dead rows
 * still there a minute and a quarter later, none after a `VACUUM`). Every delivery that finishes
 * leaves its old row version and that version's entries in the delivery table's indexes, and the
 * claim walks the due index from its oldest end: after 50,000 finished deliveries a claim took
 * 3.5–9.9 ms (18 ms with a URL at its in-flight cap) against 1.9 ms once vacuumed
 * (docs/benchmarks.md), growing without end, on the one connection every request also waits for.
 *
 * So this job applies PostgreSQL's own rule (the autovacuum documentation's vacuum and analyze
 * thresholds: a base count plus a fraction of the table's live rows), with PostgreSQL's defaults:
 * once a minute it reads the cumulative statistics and vacuums, or only analyzes, the tables past
 * them. On a PostgreSQL server its own autovacuum does this (background.ts makes this job only on PGlite).
 */
export interface EmbeddedVacuumOptions {
  intervalMs?: number;
}

export interface EmbeddedVacuum {
  start(): void;
  /** Stops after the statement in progress. */
  stop(): Promise<void>;
  /** One pass: returns what it did to which table. */
  runOnce(): Promise<Array<{ table: string; action: "vacuum" | "analyze" }>>;
}

/** PostgreSQL's defaults: autovacuum_vacuum_threshold / _scale_factor and autovacuum_analyze_*. */
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;

export function createEmbeddedVacuum({ sql, logger }: { sql: Sql; logger: Logger }, options: EmbeddedVacuumOptions = {}): EmbeddedVacuum {
  let stopped = false;

  async function runOnce() {
    // The counts of the last second may still be this connection's own, not yet in the statistics.
    await sql.query("select pg_stat_force_next_flush()");
    const tables = await sql.query<{ table: string; action: "vacuum" | "analyze" }>(
      `select quote_ident(schemaname) || '.' || quote_ident(relname) as table,
              case when n_dead_tup > $1::int + $2::float8 * n_live_tup then 'vacuum' else 'analyze' end as action
       from pg_stat_user_tables
       where n_dead_tup > $1::int + $2::float8 * n_live_tup or n_mod_since_analyze > $3::int + $4::float8 * n_live_tup
       order by n_dead_tup desc`,
      [VACUUM_BASE, VACUUM_SCALE, ANALYZE_BASE, ANALYZE_SCALE],
    );
    for (const { table, action } of tables) {
      if (stopped) break;
      const started = Date.now();
      await sql.query(action === "vacuum" ? `vacuum (analyze) ${table}` : `analyze ${table}`);
      logger.debug({ table, action, ms: Date.now() - started }, "embedded database maintained");
    }
    return tables;
  }

  const passes = periodicPass(runOnce, {
    intervalMs: options.intervalMs ?? 60_000,
    logger,
    failure: "embedded database vacuum failed; the next pass retries",
  });
  return {
    start: passes.start,
    async stop() {
      stopped = true;
      await passes.stop();
    },
    runOnce,
  };
}
