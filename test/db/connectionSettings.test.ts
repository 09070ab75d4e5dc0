import { afterAll, expect, test } from "vitest";
import { type Database, openDatabase } from "../../src/db/database.ts";
import type { Sql } from "../../src/db/sql.ts";
import { createLogger } from "../../src/log.ts";
import { createTestDatabase } from "../helpers/database.ts";

/**
 * The settings every connection to a PostgreSQL server gets (src/db/database.ts): timestamps in
 * UTC, and no JIT — the event path's batch statements were estimated above jit_above_cost and spent
 * hundreds of milliseconds compiling each batch. PGlite has neither setting to make.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
let database: Database | undefined;
let drop: (() => Promise<void>) | undefined;

afterAll(async () => {
  await database?.close();
  await drop?.();
});

test.skipIf(!onPostgres)("every connection of every pool runs in UTC without JIT", async () => {
  const created = await createTestDatabase({ migrated: true });
  drop = created.drop;
  database = await openDatabase(created.target, createLogger("silent"));
  for (const sql of [database.sql, database.workerSql, database.recordingSql]) {
    const [row] = await sql.query<{ jit: string; zone: string }>("select current_setting('jit') as jit, current_setting('TimeZone') as zone");
    expect(row).toEqual({ jit: "off", zone: "UTC" });
  }
  // Only the accepting statement's pool plans its prepared statements once (Database.recordingSql).
  const planning = async (sql: Sql) => (await sql.query<{ mode: string }>("select current_setting('plan_cache_mode') as mode"))[0].mode;
  expect([await planning(database.sql), await planning(database.workerSql), await planning(database.recordingSql)]).toEqual(["auto", "auto", "force_generic_plan"]);
  // The hot path's pools never plan a sequential scan where an index reaches the rows: a plan cached
  // on a new deployment's small tables would read them whole once they grew (test/delivery/cachedPlans.test.ts).
  const scanning = async (sql: Sql) => (await sql.query<{ on: string }>("select current_setting('enable_seqscan') as on"))[0].on;
  expect([await scanning(database.sql), await scanning(database.workerSql), await scanning(database.recordingSql)]).toEqual(["on", "off", "off"]);
});
