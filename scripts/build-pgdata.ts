import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { dropTemplateDatabases, PGDATA_TEMPLATE, PGDATA_TEMPLATE_MANIFEST, PGLITE_SETTINGS, type PgdataTemplateManifest, templateIsCurrent } from "../src/db/database.ts";
import { migrate, readMigrations } from "../src/db/migrate.ts";
import { sqlOverPGlite } from "../src/db/pgliteSql.ts";
import { createLogger } from "../src/log.ts";

/**
 * Makes dist/pgdata-template: the embedded database as a new DATA_DIR needs it (PGlite's initdb,
 * then every migration of prisma/migrations applied), which src/db/database.ts copies into a new
 * DATA_DIR instead of running initdb and the migrations at the first start: applying them there was
 * ~2 s of CPU, more than the rest of the start (docs/benchmarks.md, "The first start from a
 * migrated template"). Part of `npm run build`, so `npm install` makes it.
 *
 * The manifest beside it lists the migrations it holds (name and checksum); the template is made
 * again whenever they are not exactly the checkout's, and a start only copies a template whose
 * migrations are all the code's own (src/db/database.ts), so a template never gets ahead of the code.
 */
const migrations = readMigrations();
const manifest = existsSync(PGDATA_TEMPLATE_MANIFEST)
  ? (JSON.parse(readFileSync(PGDATA_TEMPLATE_MANIFEST, "utf8")) as PgdataTemplateManifest)
  : undefined;
if (manifest === undefined || !templateIsCurrent(manifest, migrations)) {
  const started = Date.now();
  // The manifest goes first and is written last: a template without one is unfinished or from an older build.
  rmSync(PGDATA_TEMPLATE_MANIFEST, { force: true });
  rmSync(`${PGDATA_TEMPLATE}.empty-dirs.json`, { force: true }); // an older build's list
  rmSync(PGDATA_TEMPLATE, { recursive: true, force: true });
  const building = `${PGDATA_TEMPLATE}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const pglite = new PGlite(building, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  await pglite.waitReady;
  await migrate(sqlOverPGlite(pglite), createLogger("warn"), migrations);
  await dropTemplateDatabases(pglite);
  const databases = (await pglite.query<{ datname: string }>("select datname from pg_database order by datname")).rows.map((row) => row.datname);
  // What the migrations' rewrites left behind is not copied into every new DATA_DIR.
  await pglite.exec("vacuum");
  await pglite.close();
  // Opened once more: PostgreSQL writes its relation cache files (pg_internal.init, which the
  // migrations' DDL invalidated) when a start finds none; without them in the template, every
  // new DATA_DIR's first start builds them from the catalogs.
  const reopened = new PGlite(building, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  await reopened.waitReady;
  await reopened.close();
  renameSync(building, PGDATA_TEMPLATE);
  // npm pack keeps no empty folders, and PostgreSQL will not start without them (pg_tblspc, …):
  // the list goes into the manifest so a copy can make them again.
  const emptyDirs: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.length === 0) emptyDirs.push(relative(PGDATA_TEMPLATE, dir));
    for (const entry of entries) if (entry.isDirectory()) walk(join(dir, entry.name));
  };
  walk(PGDATA_TEMPLATE);
  const made: PgdataTemplateManifest = { emptyDirs, migrations: migrations.map(({ name, checksum }) => ({ name, checksum })), databases };
  writeFileSync(PGDATA_TEMPLATE_MANIFEST, `${JSON.stringify(made, null, 1)}\n`);
  process.stdout.write(`  Embedded database template made in ${((Date.now() - started) / 1000).toFixed(1)} s (${migrations.length} migrations)\n`);
}
