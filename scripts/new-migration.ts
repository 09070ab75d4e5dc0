// Writes prisma/migrations/<next number>_<name>/migration.sql: the SQL that takes the database from
// what the existing migrations build to what prisma/schema.prisma describes. Offline: Prisma's WASM
// schema engine computes the diff against the previous schema snapshot, no database needed.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run migration:new -- <name_in_snake_case>");
  process.exit(2);
}
const dir = "prisma/migrations";
const snapshot = join(dir, "schema.snapshot.prisma"); // the schema as of the last migration
const prisma = "node_modules/.bin/prisma";
const from = existsSync(snapshot) ? ["--from-schema-datamodel", snapshot] : ["--from-empty"];
const sql = execFileSync(prisma, ["migrate", "diff", ...from, "--to-schema-datamodel", "prisma/schema.prisma", "--script"], {
  encoding: "utf8",
});
if (!/\b(CREATE|ALTER|DROP)\b/.test(sql)) {
  console.log("schema.prisma has no changes since the last migration: nothing written.");
  process.exit(0);
}
// After the highest number, not the count: numbers retired by merges leave gaps.
const next = Math.max(0, ...readdirSync(dir).filter((entry) => /^\d{4}_/.test(entry)).map((entry) => Number(entry.slice(0, 4)))) + 1;
const folder = join(dir, `${String(next).padStart(4, "0")}_${name}`);
mkdirSync(folder);
writeFileSync(join(folder, "migration.sql"), sql);
copyFileSync("prisma/schema.prisma", snapshot);
console.log(`wrote ${folder}/migration.sql — review it, then commit it with schema.prisma`);
