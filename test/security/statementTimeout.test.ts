import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { EventLog } from "../helpers/operations.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * No request may hold the shared PostgreSQL server for long: the connections that serve requests
 * carry a statement_timeout (DATABASE_STATEMENT_TIMEOUT), and a statement cancelled by it is a
 * clean error for the caller — DATABASE_TIMEOUT on GraphQL, 503 `database_timeout` on REST — not
 * a hang and not a stack. A statement waiting on a lock counts: the test makes one wait by holding
 * a lock from another connection, so nothing here depends on how fast the machine is.
 *
 * The embedded database (PGlite) cannot interrupt a running statement; there the cost limits are
 * the defence (docs/security.md).
 */
const onPostgres = process.env.TEST_DATABASE_URL !== undefined;

test("DATABASE_STATEMENT_TIMEOUT is a duration, 10 s by default, 0 for none", () => {
  const key = randomBytes(32).toString("base64");
  expect(loadConfig({ ENCRYPTION_KEY: key }).databaseStatementTimeoutMs).toBe(10_000);
  expect(loadConfig({ ENCRYPTION_KEY: key, DATABASE_STATEMENT_TIMEOUT: "2s" }).databaseStatementTimeoutMs).toBe(2000);
  expect(loadConfig({ ENCRYPTION_KEY: key, DATABASE_STATEMENT_TIMEOUT: "0" }).databaseStatementTimeoutMs).toBe(0);
  expect(() => loadConfig({ ENCRYPTION_KEY: key, DATABASE_STATEMENT_TIMEOUT: "soon" })).toThrow(/DATABASE_STATEMENT_TIMEOUT/);
});

let app: TestApp;
let ada: Operator;
let locker: pg.Client;
beforeAll(async () => {
  if (!onPostgres) return;
  app = await startTestApp({ DATABASE_STATEMENT_TIMEOUT: "300ms" });
  ada = await createOperator(app, "Ada");
  locker = new pg.Client({ connectionString: app.databaseUrl });
  await locker.connect();
});
afterAll(async () => {
  await locker?.end();
  await app?.close();
});

/** Runs `work` while another connection holds an exclusive lock on `table`. */
async function whileLocked<T>(table: string, work: () => Promise<T>): Promise<T> {
  await locker.query("begin");
  await locker.query(`lock table ${table} in access exclusive mode`);
  try {
    return await work();
  } finally {
    await locker.query("rollback");
  }
}

test.skipIf(!onPostgres)("a statement past the timeout answers DATABASE_TIMEOUT over GraphQL and 503 database_timeout over REST, then the service carries on", async () => {
  const eventLog = () => app.gql(EventLog, { id: ada.deploymentId, first: 10 }, { token: ada.token });

  const timedOut = await whileLocked("trigger_event", eventLog);
  expect(timedOut.errors).toHaveLength(1);
  expect(timedOut.errors![0].extensions?.code).toBe("DATABASE_TIMEOUT");
  expect(timedOut.errors![0].message).toMatch(/took too long/);
  expect(JSON.stringify(timedOut)).not.toMatch(/select|trigger_event|57014|statement_timeout|canceling|at .*\.ts/i);

  const page = await whileLocked("data_item", () => fetch(`${app.url}/api/data`, { headers: { "x-api-key": ada.apiKey } }));
  expect(page.status).toBe(503);
  expect(page.headers.get("content-type")).toBe("application/problem+json");
  expect(page.headers.get("retry-after")).toBe("5");
  const problem = await page.json();
  expect(problem).toMatchObject({ status: 503, code: "database_timeout", detail: expect.stringMatching(/took too long/) });
  expect(JSON.stringify(problem)).not.toMatch(/select|data_item|57014|canceling/i);

  // Nothing is left stuck: the same requests answer once the lock is gone.
  expect((await eventLog()).errors).toBeUndefined();
  expect((await fetch(`${app.url}/api/data`, { headers: { "x-api-key": ada.apiKey } })).status).toBe(200);
});
