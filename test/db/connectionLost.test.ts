import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { sqlOverPool } from "../../src/db/sql.ts";
import { createTestDatabase } from "../helpers/database.ts";

/**
 * Work that holds one connection (the vacuum pass, migrations) while the server ends it — a restart,
 * an administrator's pg_terminate_backend — fails with that error; the process goes on and the
 * pool hands out a working connection next. (A connection out of the pool has no error listener of
 * the pool's; without its own, the 'error' pg emits ends the process.)
 */
const database = await createTestDatabase();
let pool: pg.Pool;
let admin: pg.Client;
beforeAll(async () => {
  if (!database.url) return;
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  pool.on("error", () => {}); // idle clients: the pool's own concern, as in src/db/database.ts
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await Promise.all([pool?.end(), admin?.end()]);
  await database.drop();
});

test.skipIf(process.env.TEST_DATABASE_URL === undefined)(
  "a connection the server ends in the middle of a statement fails that work, not the process (PostgreSQL only)",
  async () => {
    const sql = sqlOverPool(pool);
    const work = sql.withConnection(async (connection) => {
      const [{ pid }] = await connection.query<{ pid: number }>("select pg_backend_pid() as pid");
      // The statement is running when its backend is ended (awaited together: it may fail first).
      await Promise.all([connection.query("select pg_sleep(30)"), admin.query("select pg_terminate_backend($1)", [pid])]);
    });
    await expect(work).rejects.toThrow(/terminat/i);
    // The pool of one discarded the broken connection: the next work gets a new one.
    expect(await sql.withConnection((connection) => connection.query("select 1 as one"))).toEqual([{ one: 1 }]);
  },
);
