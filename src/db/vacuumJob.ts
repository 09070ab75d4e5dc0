import type { Logger } from "pino";
import { periodicPass } from "../periodicPass.ts";
import type { DatabaseOutage } from "./outage.ts";
import { type Sql, type SqlConnection, withoutStatementTimeout } from "./sql.ts";

/**
 * The vacuum PostgreSQL's autovacuum would do, where it does not run. Every delivery that finishes
 * leaves its old row version and that version's entries in the delivery table's indexes until a
 * vacuum, and the claim reads the due index from its oldest end, past all of them. Nor is a table
 * analyzed: the plan a connection made for a prepared statement while the tables were empty stays.
 *
 * - The embedded database: PGlite runs PostgreSQL in single-user mode, where `autovacuum` reads "on"
 *   but there is no launcher (measured: 20,000 dead rows still there a minute and a quarter later).
 *   After 50,000 finished deliveries a claim took 3.5–9.9 ms against 1.9 ms once vacuumed.
 * - A PostgreSQL server with `autovacuum = off` (a setting some test and CI servers use): over a
 *   four-minute benchmark the claims read 808 pages each and took 59 s of the server's time, more
 *   than recording the 85,000 events did (docs/benchmarks.md). With the server's autovacuum on,
 *   each pass sees that and does nothing.
 *
 * So this job applies PostgreSQL's own rule (the autovacuum documentation's vacuum and analyze
 * thresholds: a base count plus a fraction of the table's live rows), with PostgreSQL's defaults:
 * every VACUUM_INTERVAL (ten seconds unless set) it reads the cumulative statistics and vacuums, or
 * only analyzes, the app's tables past them. Several instances on one server take turns (an advisory
 * lock): one pass at a time.
 *
 * Ten seconds rather than autovacuum's minute (`autovacuum_naptime`): until a table's first ANALYZE
 * the planner takes "one deployment's PENDING deliveries" for a row or two, and the embedded
 * database's claim read every one of them three times to pick a batch (3,002 rows each time, with a
 * backlog of 3,002; once analyzed, 512 due-index entries and the batch by primary key). A new
 * embedded database's first minute of a burst delivered at a third of the next minute's rate
 * (docs/benchmarks.md). A pass that finds nothing to do costs one read of the statistics.
 *
 * On the embedded database it applies autovacuum's anti-wraparound rule too: a table (the system
 * catalogs and insert-only tables included) whose oldest unfrozen transaction id is older than
 * `autovacuum_freeze_max_age` (200 million) is frozen. Nothing else ever freezes them there, and in
 * single-user mode PostgreSQL does not stop at its wraparound limit (varsup.c's GetNewTransactionId
 * refuses new ids only under a postmaster): about two billion transactions on (months at a few
 * hundred a second), rows written before would read as written in the future, and vanish. A
 * server's autovacuum freezes even when it is off.
 */
export interface VacuumJob {
  start(): void;
  /** Stops after the statement in progress. */
  stop(): Promise<void>;
  /** One pass: returns what it did to which table ([] when the server's autovacuum runs, or another instance's pass does). */
  runOnce(): Promise<Array<{ table: string; action: "vacuum" | "analyze" | "freeze" }>>;
}

/** PostgreSQL's defaults: autovacuum_vacuum_threshold / _scale_factor and autovacuum_analyze_*. */
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
/** The advisory lock one instance's pass holds (pg_try_advisory_lock's key; the signup lock is another). */
export const VACUUM_LOCK = 7_460_104_311;

export interface VacuumJobDeps {
  sql: Sql;
  logger: Logger;
  /** PGlite (no autovacuum at all) rather than a PostgreSQL server (whose setting decides). */
  embedded: boolean;
  /** Logs an unreachable database once for the service (a pass that fails on it logs nothing more). */
  databaseOutage?: DatabaseOutage;
  /** How often a pass runs (VACUUM_INTERVAL), the first one too. */
  intervalMs: number;
  /** Transactions a table's oldest unfrozen id may be behind before the embedded database freezes it: the server's `autovacuum_freeze_max_age` unless set (tests). */
  freezeMaxAge?: number;
}

export function createVacuumJob({ sql, logger, embedded, databaseOutage, intervalMs, freezeMaxAge }: VacuumJobDeps): VacuumJob {
  let toldServerAutovacuumOff = false;

  /** Freezes every table of the database, catalogs included, whose oldest unfrozen transaction id is past the freeze age. */
  async function freezeOld(connection: SqlConnection) {
    const tables = await connection.query<{ table: string; action: "freeze" }>(
      `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as table, 'freeze' as action
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'm') and age(c.relfrozenxid) > coalesce($1::int, current_setting('autovacuum_freeze_max_age')::int)
       order by age(c.relfrozenxid) desc`,
      [freezeMaxAge ?? null],
    );
    for (const { table } of tables) {
      if (passes.stopping()) break;
      await connection.exec(`vacuum (freeze) ${table}`);
    }
    if (tables.length > 0) logger.info({ tables: tables.length }, "database tables frozen (their oldest transaction ids were past autovacuum_freeze_max_age)");
    return tables;
  }

  /** Vacuums, or analyzes, this schema's tables past PostgreSQL's default thresholds. */
  async function maintain(connection: SqlConnection) {
    const tables = await connection.query<{ table: string; action: "vacuum" | "analyze" }>(
      `select quote_ident(schemaname) || '.' || quote_ident(relname) as table,
              case when n_dead_tup > $1::int + $2::float8 * n_live_tup then 'vacuum' else 'analyze' end as action
       from pg_stat_user_tables
       where schemaname = current_schema()
         and (n_dead_tup > $1::int + $2::float8 * n_live_tup or n_mod_since_analyze > $3::int + $4::float8 * n_live_tup)
       order by n_dead_tup desc`,
      [VACUUM_BASE, VACUUM_SCALE, ANALYZE_BASE, ANALYZE_SCALE],
    );
    for (const { table, action } of tables) {
      if (passes.stopping()) break;
      const started = Date.now();
      await connection.exec(action === "vacuum" ? `vacuum (analyze) ${table}` : `analyze ${table}`);
      logger.debug({ table, action, ms: Date.now() - started }, "database table maintained");
    }
    return tables;
  }

  function runOnce() {
    return sql.withConnection(async (connection) => {
      if (embedded) {
        // The counts of the last second may still be this connection's own, not yet in the statistics.
        await connection.query("select pg_stat_force_next_flush()");
        return [...(await freezeOld(connection)), ...(await maintain(connection))];
      }
      const [{ off }] = await connection.query<{ off: boolean }>("select current_setting('autovacuum') = 'off' as off");
      if (!off) return [];
      if (!toldServerAutovacuumOff) {
        toldServerAutovacuumOff = true;
        logger.warn(
          { vacuumIntervalMs: intervalMs },
          "autovacuum is off on this PostgreSQL server: Switchyard vacuums and analyzes its own tables every VACUUM_INTERVAL (see docs/operations.md)",
        );
      }
      const [{ locked }] = await connection.query<{ locked: boolean }>("select pg_try_advisory_lock($1) as locked", [VACUUM_LOCK]);
      if (!locked) return [];
      try {
        // A large table's vacuum may outlast the request pool's statement_timeout.
        return await withoutStatementTimeout(connection, () => maintain(connection));
      } finally {
        await connection.query("select pg_advisory_unlock($1)", [VACUUM_LOCK]);
      }
    });
  }

  const passes = periodicPass(runOnce, {
    intervalMs,
    logger,
    failure: "vacuuming the database failed; the next pass retries",
    outage: databaseOutage,
  });
  return { start: passes.start, stop: passes.stop, runOnce };
}
