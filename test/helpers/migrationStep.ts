/**
 * For tests of one data migration, called inside the test: a database of the test's kind (embedded or the server), migrated
 * up to just before the named migration; the test writes rows as they were, then applies it with
 * `migrateThrough()` and reads what it did.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { expect, onTestFinished } from "vitest";
import { migrate, readMigrations } from "../../src/db/migrate.ts";
import { sqlOverPGlite } from "../../src/db/pgliteSql.ts";
import { type Sql, sqlOverPool } from "../../src/db/sql.ts";
import { createLogger } from "../../src/log.ts";
import { createTestDatabase } from "./database.ts";

const logger = createLogger("silent");

export async function databaseBefore(migrationSuffix: string): Promise<{ sql: Sql; migrateThrough: () => Promise<void> }> {
  const server = await createTestDatabase();
  let sql: Sql;
  let close: () => Promise<void>;
  if (server.target.kind === "pglite") {
    const db = new PGlite();
    sql = sqlOverPGlite(db);
    close = () => db.close();
  } else {
    const pool = new pg.Pool({ connectionString: server.url });
    sql = sqlOverPool(pool);
    close = () => pool.end();
  }
  onTestFinished(async () => {
    await close();
    await server.drop();
  });
  const all = readMigrations();
  const at = all.findIndex((m) => m.name.endsWith(migrationSuffix));
  expect(at, `a migration named …${migrationSuffix}`).toBeGreaterThan(0);
  await migrate(sql, logger, all.slice(0, at));
  return { sql, migrateThrough: async () => void (await migrate(sql, logger, all.slice(0, at + 1))) };
}
