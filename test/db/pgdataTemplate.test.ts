import { describe, expect, test } from "vitest";
import { type PgdataTemplateManifest, templateIsCurrent, templateMatches } from "../../src/db/database.ts";
import { readMigrations } from "../../src/db/migrate.ts";

/**
 * The build's embedded-database template (scripts/build-pgdata.ts) is made again unless its manifest
 * says it is exactly what this checkout makes; a start copies any template whose migrations the code
 * can carry on from. A template from an older build still holds initdb's template0 and template1
 * (a third of what a first start copies), and its manifest says nothing of its databases.
 */
const migrations = readMigrations();
const current: PgdataTemplateManifest = {
  emptyDirs: ["pg_tblspc"],
  migrations: migrations.map(({ name, checksum }) => ({ name, checksum })),
  databases: ["postgres"],
};

describe("the embedded database template", () => {
  test("the checkout's migrations and only the postgres database: current, kept by the build", () => {
    expect(templateIsCurrent(current, migrations)).toBe(true);
  });

  test("an older build's template (no databases in its manifest) is made again, though a start could still use it", () => {
    const { databases: _, ...older } = current;
    expect(templateIsCurrent(older, migrations)).toBe(false);
    expect(templateMatches(older, migrations)).toBe(true);
  });

  test("a template that still holds initdb's template databases is made again", () => {
    expect(templateIsCurrent({ ...current, databases: ["postgres", "template0", "template1"] }, migrations)).toBe(false);
  });

  test("one migration behind the checkout: made again (a start copies it and applies the last one)", () => {
    const behind = { ...current, migrations: current.migrations.slice(0, -1) };
    expect(templateIsCurrent(behind, migrations)).toBe(false);
    expect(templateMatches(behind, migrations)).toBe(true);
  });

  test("a migration changed since the template was made: made again, and no start copies it", () => {
    const changed = { ...current, migrations: current.migrations.map((m, i) => (i === 0 ? { ...m, checksum: "0".repeat(64) } : m)) };
    expect(templateIsCurrent(changed, migrations)).toBe(false);
    expect(templateMatches(changed, migrations)).toBe(false);
  });
});
