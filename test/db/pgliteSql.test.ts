import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sqlOverPGlite } from "../../src/db/pgliteSql.ts";
import type { Sql } from "../../src/db/sql.ts";

/**
 * Named queries on the embedded database run as prepared statements (src/db/pgliteSql.ts): the
 * same rows as PGlite's own query(), the statement prepared once, an error leaving the session
 * usable, never a statement inside another caller's transaction, and planned with its Sql's settings.
 */
let pglite: PGlite;
let sql: Sql;

beforeAll(async () => {
  pglite = new PGlite();
  await pglite.exec("create table item (id int primary key, at timestamp not null, payload json, tags text[], big bigint)");
  sql = sqlOverPGlite(pglite);
});
afterAll(async () => {
  await pglite?.close();
});

const insert = `insert into item (id, at, payload, tags, big) values ($1, $2::timestamp, $3::json, $4::text[], $5) returning *`;

describe("named queries over PGlite", () => {
  test("return what PGlite's own query returns, for the same values, the prepared statement reused", async () => {
    const values = [1, "2026-12-02T10:00:00.000Z", JSON.stringify({ a: [1, "two"] }), ["x", "y,z"], "9007199254740993"];
    const named = await sql.query(insert, values, "item_insert");
    const [unnamed] = (await pglite.query(`delete from item where id = 1 returning *`)).rows;
    expect(named).toEqual([unnamed]);
    expect(named[0]).toMatchObject({ id: 1, payload: { a: [1, "two"] }, tags: ["x", "y,z"] });

    const again = await sql.query(insert, [2, "2026-12-02T11:00:00.000Z", null, [], null], "item_insert");
    expect(again).toEqual([{ id: 2, at: new Date("2026-12-02T11:00:00.000Z"), payload: null, tags: [], big: null }]);
    const statements = (await pglite.query<{ name: string }>("select name from pg_prepared_statements")).rows.map((row) => row.name);
    expect(statements).toEqual(["item_insert"]);
  });

  test("a failed statement rejects with PostgreSQL's code, and the next runs", async () => {
    await expect(sql.query(insert, [2, "2026-12-02T12:00:00.000Z", null, [], null], "item_insert")).rejects.toMatchObject({ code: "23505" });
    await expect(sql.query("select count(*)::int as n from item where id = $1", [2], "item_count")).resolves.toEqual([{ n: 1 }]);
    await expect(sql.query("select nothing from item", [], "broken")).rejects.toMatchObject({ code: "42703" });
    await expect(sql.query("select count(*)::int as n from item where id = $1", [2], "item_count")).resolves.toEqual([{ n: 1 }]);
  });

  test("a second Sql over the same PGlite runs a statement the first prepared", async () => {
    const other = sqlOverPGlite(pglite);
    await expect(other.query("select count(*)::int as n from item where id = $1", [2], "item_count")).resolves.toEqual([{ n: 1 }]);
    await expect(sql.query("select count(*)::int as n from item where id = $1", [2], "item_count")).resolves.toEqual([{ n: 1 }]);
  });

  test("waits for another caller's transaction instead of running inside it", async () => {
    let inside: () => void;
    const begun = new Promise<void>((resolve) => (inside = resolve));
    let release: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = pglite.transaction(async (tx) => {
      await tx.query("insert into item (id, at) values (3, now())");
      inside();
      await held;
      await tx.rollback();
    });
    await begun;
    const counted = sql.query<{ n: number }>("select count(*)::int as n from item where id = $1", [3], "item_count");
    release!();
    await transaction;
    // Had it run inside, it would have seen the row the transaction then rolled back.
    expect(await counted).toEqual([{ n: 0 }]);
  });

  test("an Sql's planner settings plan its named statements, and the session keeps its own", async () => {
    const indexed = sqlOverPGlite(pglite, { enable_seqscan: "off", enable_bitmapscan: "off" });
    const explain = "explain select count(*) from item";
    const plan = (rows: Record<string, string>[]) => rows.map((row) => row["QUERY PLAN"]).join("\n");
    // Every row: without the settings PostgreSQL reads the table, with them its primary key's index.
    expect(plan(await sql.query(explain, [], "item_plan"))).toMatch(/Seq Scan on item/);
    expect(plan(await indexed.query(explain, [], "item_plan_indexed"))).toMatch(/Index Only Scan using item_pkey on item/);
    const session = async () => (await pglite.query<{ seq: string; bitmap: string }>("select current_setting('enable_seqscan') as seq, current_setting('enable_bitmapscan') as bitmap")).rows[0];
    expect(await session()).toEqual({ seq: "on", bitmap: "on" });
    // A statement that fails puts them back too.
    await expect(indexed.query("select 1 / $1::int", [0], "item_divide")).rejects.toMatchObject({ code: "22012" });
    expect(await session()).toEqual({ seq: "on", bitmap: "on" });
  });
});
