import { execFileSync } from "node:child_process";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, expect, test } from "vitest";
import { migrate, readMigrations } from "../../src/db/migrate.ts";
import { sqlOverPGlite } from "../../src/db/pgliteSql.ts";
import { sqlOverPool } from "../../src/db/sql.ts";
import { createLogger } from "../../src/log.ts";
import { createTestDatabase } from "../helpers/database.ts";
import pg from "pg";

const logger = createLogger("silent");

/**
 * Indexes a migration adds that schema.prisma cannot express (partial unique indexes). They are
 * left out of the comparison and checked to exist on their own.
 */
const BEYOND_PRISMA = ["delivery_due_idx", "delivery_in_flight_url_idx", "provider_subscription_live_key"];

/** Tables, columns, types, nullability, defaults and indexes: what a schema diff would compare. */
async function catalog(db: PGlite): Promise<string> {
  const columns = await db.query(`
    select table_name, column_name, data_type, udt_name, is_nullable, column_default
      from information_schema.columns where table_schema = 'public' and table_name <> '_switchyard_migrations'
     order by table_name, column_name`);
  const indexes = await db.query(
    `select indexname, indexdef from pg_indexes where schemaname = 'public' and tablename <> '_switchyard_migrations' and indexname <> all($1) order by indexname`,
    [BEYOND_PRISMA],
  );
  const constraints = await db.query(`
    select conname, pg_get_constraintdef(c.oid) as def from pg_constraint c
      join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public' and conname not like '\\_switchyard%' order by conname`);
  return JSON.stringify([columns.rows, indexes.rows, constraints.rows], null, 1);
}

// Database-independent (it compares two embedded databases): run once, in the embedded pass.
test.skipIf(process.env.TEST_DATABASE_URL !== undefined)("the migrations build exactly the database schema.prisma describes (add a migration with `npm run migration:new`)", async () => {
  const fromSchema = execFileSync(
    "node_modules/.bin/prisma",
    ["migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  );
  const viaMigrations = new PGlite();
  await migrate(sqlOverPGlite(viaMigrations), logger);
  const viaSchema = new PGlite();
  await viaSchema.exec(fromSchema);
  expect(await catalog(viaMigrations)).toBe(await catalog(viaSchema));
  const beyond = await viaMigrations.query<{ indexname: string }>(`select indexname from pg_indexes where indexname = any($1) order by indexname`, [BEYOND_PRISMA]);
  expect(beyond.rows.map((row) => row.indexname)).toEqual([...BEYOND_PRISMA].sort());
  await viaMigrations.close();
  await viaSchema.close();
}, 180_000);

const server = await createTestDatabase();
afterAll(() => server.drop());

test("several processes migrating one database at once apply each migration once", async () => {
  if (server.target.kind === "pglite") {
    // One embedded database belongs to one process; the advisory lock matters on a server.
    const db = new PGlite();
    const sql = sqlOverPGlite(db);
    expect(await migrate(sql, logger)).toEqual(readMigrations().map((m) => m.name));
    expect(await migrate(sql, logger)).toEqual([]);
    await db.close();
    return;
  }
  const pools = [1, 2, 3].map(() => new pg.Pool({ connectionString: server.url, max: 2 }));
  const results = await Promise.all(pools.map((pool) => migrate(sqlOverPool(pool), logger)));
  expect(results.flat()).toEqual(readMigrations().map((m) => m.name));
  const applied = await pools[0].query("select count(*)::int as n from _switchyard_migrations");
  expect(applied.rows[0].n).toBe(readMigrations().length);
  await Promise.all(pools.map((pool) => pool.end()));
});

test("a migration edited after it was applied stops start-up with what to do", async () => {
  const db = new PGlite();
  const sql = sqlOverPGlite(db);
  const migrations = readMigrations();
  await migrate(sql, logger, migrations);
  const edited = [{ ...migrations[0], checksum: "0".repeat(64) }, ...migrations.slice(1)];
  await expect(migrate(sql, logger, edited)).rejects.toThrow(/was changed after it was applied.*add a new migration/);
  await db.close();
});

test("a failing migration leaves nothing half-applied", async () => {
  const db = new PGlite();
  const sql = sqlOverPGlite(db);
  const broken = [{ name: "9999_broken", sql: "create table half_done (id int); select * from no_such_table;", checksum: "x" }];
  await expect(migrate(sql, logger, broken)).rejects.toThrow(/no_such_table/);
  const tables = await db.query(`select count(*)::int as n from information_schema.tables where table_name = 'half_done'`);
  expect(tables.rows).toEqual([{ n: 0 }]);
  const recorded = await db.query(`select count(*)::int as n from _switchyard_migrations`);
  expect(recorded.rows).toEqual([{ n: 0 }]);
  await db.close();
});
