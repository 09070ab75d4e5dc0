import { randomBytes } from "node:crypto";
import pg from "pg";
import type { DatabaseTarget } from "../../src/db/database.ts";

/**
 * Each test file gets a database of its own, so files run in parallel: an in-memory PGlite by
 * default, or a fresh database on the server named by TEST_DATABASE_URL (dropped afterwards).
 */
export async function createTestDatabase(): Promise<{ target: DatabaseTarget; url?: string; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { target: { kind: "pglite", dataDir: undefined }, drop: async () => {} };

  const name = `sy_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
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
