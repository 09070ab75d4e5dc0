import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { inject } from "vitest";
import type { DatabaseTarget } from "../../src/db/database.ts";

/**
 * Each test file gets a database of its own, so files run in parallel: an in-memory PGlite by
 * default, or a fresh database on the server named by TEST_DATABASE_URL (dropped afterwards).
 *
 * `migrated`: the database starts as a copy of the run's migrated template (test/databaseTemplate.ts)
 * instead of empty, so opening it applies nothing; without it the database is empty, for tests of
 * the migrations themselves.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<{ target: DatabaseTarget; url?: string; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const template = options.migrated ? inject("pgliteTemplate") : undefined;
    return { target: { kind: "pglite", dataDir: undefined, testOnlyStartFrom: template ? new Blob([readFileSync(template)]) : undefined }, drop: async () => {} };
  }

  const name = `sy_test_${randomBytes(6).toString("hex")}`;
  const template = options.migrated ? inject("postgresTemplate") : undefined;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ""}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    target: { kind: "postgresql", url: url.toString(), poolSize: 5 },
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}
