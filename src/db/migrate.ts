import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { packageRoot } from "../version.ts";
import { type Sql, type SqlConnection, withoutStatementTimeout } from "./sql.ts";

export const migrationsDir = join(packageRoot, "prisma", "migrations");

// An arbitrary constant shared by every Switchyard process: whoever holds it applies migrations.
const LOCK_KEY = 727_001;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export class MigrationChecksumError extends Error {}

/**
 * Applies new migrations in name order, each in its own transaction, under an advisory lock so that
 * several instances starting at once apply each file exactly once. A file whose content changed
 * after it was applied stops start-up: edit the schema with a new migration instead.
 */
export async function migrate(sql: Sql, logger: Logger, migrations = readMigrations()): Promise<string[]> {
  // Waiting for another instance's migrations, or a migration rewriting a large table, may take
  // longer than the request pool's statement timeout.
  return sql.withConnection((connection) => withoutStatementTimeout(connection, () => migrateLocked(connection, logger, migrations)));
}

async function migrateLocked(connection: SqlConnection, logger: Logger, migrations: Migration[]): Promise<string[]> {
  await connection.query("select pg_advisory_lock($1)", [LOCK_KEY]);
  try {
    await connection.exec(`create table if not exists _switchyard_migrations (
      name text primary key,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`);
    const applied = new Map(
      (await connection.query<{ name: string; checksum: string }>("select name, checksum from _switchyard_migrations")).map(
        (row) => [row.name, row.checksum],
      ),
    );
    const appliedNow: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new MigrationChecksumError(
            `migration ${migration.name} was changed after it was applied; restore it and add a new migration instead`,
          );
        }
        continue;
      }
      logger.info({ migration: migration.name }, "applying migration");
      await connection.exec("begin");
      try {
        await connection.exec(migration.sql);
        await connection.query("insert into _switchyard_migrations (name, checksum) values ($1, $2)", [
          migration.name,
          migration.checksum,
        ]);
        await connection.exec("commit");
      } catch (error) {
        await connection.exec("rollback");
        throw error;
      }
      appliedNow.push(migration.name);
    }
    return appliedNow;
  } finally {
    await connection.query("select pg_advisory_unlock($1)", [LOCK_KEY]);
  }
}
