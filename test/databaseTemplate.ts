/**
 * Vitest's global set-up: one migrated database per run, which every test app's database starts as
 * a copy of (test/helpers/database.ts), instead of each running initdb and every migration again.
 * On the embedded database that was seconds of CPU per app (PGlite's initdb alone: ~3 s quiet, 12 s
 * at load 10), paid some 150 times per run; a copy of a dump loads in a fraction of that.
 *
 * Embedded: a PGlite dump (dumpDataDir) holding the one database, as the build's template does,
 * cached in node_modules/.cache under a name made of what it depends on (PGlite's version, its
 * settings, every migration's checksum), so a changed migration makes a new one and an unchanged
 * tree reuses it across runs.
 * PostgreSQL (TEST_DATABASE_URL): a database made and migrated for this run, dropped at its end;
 * test databases are created from it with CREATE DATABASE … TEMPLATE.
 *
 * The migrations still run, through the same `migrate()`, on every run's template: a broken one
 * fails here, before any test.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { dropTemplateDatabases, PGLITE_SETTINGS } from "../src/db/database.ts";
import { migrate, readMigrations } from "../src/db/migrate.ts";
import { sqlOverPGlite } from "../src/db/pgliteSql.ts";
import { sqlOverPool } from "../src/db/sql.ts";
import { createLogger } from "../src/log.ts";
import { packageRoot } from "../src/version.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A file holding a migrated PGlite dump (embedded runs). */
    pgliteTemplate?: string;
    /** The migrated database test databases are created from (PostgreSQL runs). */
    postgresTemplate?: string;
  }
}

const logger = createLogger("silent");

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const name = `sy_template_${randomBytes(6).toString("hex")}`;
    await adminQuery(serverUrl, `create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
    try {
      await migrate(sqlOverPool(pool), logger);
    } finally {
      await pool.end();
    }
    project.provide("postgresTemplate", name);
    return () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  }
  project.provide("pgliteTemplate", await pgliteTemplate());
  return undefined;
}

async function pgliteTemplate(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(packageRoot, "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")) as { version: string };
  const key = createHash("sha256")
    .update(JSON.stringify([version, PGLITE_SETTINGS, readMigrations().map((m) => [m.name, m.checksum]), "postgres only"]))
    .digest("hex")
    .slice(0, 16);
  const dir = join(packageRoot, "node_modules", ".cache", "switchyard-tests");
  const file = join(dir, `pglite-migrated-${key}.tar`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const pglite = new PGlite({ startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  try {
    await migrate(sqlOverPGlite(pglite), logger);
    // As the build's template (scripts/build-pgdata.ts): one database, a third less to load per test app.
    await dropTemplateDatabases(pglite);
    const dump = await pglite.dumpDataDir("none");
    // Written aside and renamed: a run stopped mid-write, or another run beside this one, never
    // reads half a dump.
    const writing = `${file}.${process.pid}`;
    writeFileSync(writing, Buffer.from(await dump.arrayBuffer()));
    renameSync(writing, file);
  } finally {
    await pglite.close();
  }
  return file;
}

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
