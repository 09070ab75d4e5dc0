import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGDATA_TEMPLATE, PGDATA_TEMPLATE_EMPTY_DIRS, PGLITE_SETTINGS } from "../src/db/database.ts";

/**
 * Makes dist/pgdata-template: an empty embedded database (PGlite's initdb, nothing else), which
 * src/db/database.ts copies into a new DATA_DIR instead of running initdb at the first start.
 * Part of `npm run build`, so `npm install` makes it. Migrations are not applied here: the service
 * applies them at start-up as for any database, so a template never gets ahead of the code.
 */
// The list of empty folders is written last: a template without it is from an older build.
if (!existsSync(PGDATA_TEMPLATE_EMPTY_DIRS)) {
  const started = Date.now();
  rmSync(PGDATA_TEMPLATE, { recursive: true, force: true });
  const building = `${PGDATA_TEMPLATE}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const pglite = new PGlite(building, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
  await pglite.waitReady;
  await pglite.close();
  renameSync(building, PGDATA_TEMPLATE);
  // npm pack keeps no empty folders, and PostgreSQL will not start without them (pg_tblspc, …):
  // the list goes beside the template so a copy can make them again.
  const emptyDirs: string[] = [];
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.length === 0) emptyDirs.push(relative(PGDATA_TEMPLATE, dir));
    for (const entry of entries) if (entry.isDirectory()) walk(join(dir, entry.name));
  };
  walk(PGDATA_TEMPLATE);
  writeFileSync(PGDATA_TEMPLATE_EMPTY_DIRS, `${JSON.stringify(emptyDirs, null, 1)}\n`);
  process.stdout.write(`  Embedded database template made in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
