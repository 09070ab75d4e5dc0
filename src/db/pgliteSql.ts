import { type PGlite, parse, protocol } from "@electric-sql/pglite";
import type { PlannerSettings } from "./database.ts";
import type { Sql, SqlConnection } from "./sql.ts";

const { serialize } = protocol;

/** Protocol messages sent as one: PGlite's backend reads them in order in one call. */
const messages = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/**
 * Sql over PGlite, the embedded database (its module is loaded only when that is the database).
 *
 * A query with a `name` runs as a named prepared statement, as it does on a PostgreSQL server
 * (./sql.ts): parsed and described once, then bound and executed. PGlite's own `query()` parses,
 * describes and plans the text at every call, and PostgreSQL's WebAssembly is slow at that: the
 * accepting statement's planning took 2.2–2.5 ms against 0.8–0.9 ms to run it (docs/benchmarks.md).
 * PostgreSQL plans a prepared statement's first five executions for their values, then keeps a
 * generic plan unless that would cost more.
 *
 * The statement runs under PGlite's two locks, as `query()` does: never between the statements of
 * another caller's transaction (Prisma's), never between another query's messages.
 *
 * `plannerSettings`: what a server's pool sets for its sessions (./database.ts, INDEXED_PLANS), set
 * for each named statement and reset after it, since the one session serves Prisma too. Without
 * them the hot path's statements kept plans made on a new database's nearly empty tables, which read
 * the tables whole once they grew: on the embedded benchmark, the accepting statement ran a dozen
 * sequential scans an event, 21 ms a batch against 14 with them (docs/benchmarks.md).
 */
export function sqlOverPGlite(pglite: PGlite, plannerSettings: PlannerSettings = {}): Sql {
  /** Parameter types of each statement prepared (its description): values are serialized by them, as `query()` does. */
  const prepared = new Map<string, number[]>();
  const settings = Object.entries(plannerSettings);
  const set = serialize.query(settings.map(([name, value]) => `set ${name} = ${value}`).join("; "));
  const reset = serialize.query(settings.map(([name]) => `reset ${name}`).join("; "));

  async function prepare(name: string, text: string): Promise<number[]> {
    const describe = () => messages(serialize.describe({ type: "S", name }), serialize.sync());
    let described;
    try {
      described = await pglite.execProtocolStream(messages(serialize.parse({ name, text }), describe()));
    } catch (error) {
      // Prepared on this session already, by another Sql over the same PGlite: the prepared statements
      // belong to the session, this map only to this object. One name always carries one text.
      if ((error as { code?: string }).code !== "42P05") throw error;
      described = await pglite.execProtocolStream(describe());
    }
    const parameterTypes = parse.parseDescribeStatementResults(described);
    prepared.set(name, parameterTypes);
    return parameterTypes;
  }

  async function runPrepared<Row>(name: string, text: string, params: unknown[]): Promise<Row[]> {
    await pglite._checkReady();
    return pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(async () => {
        const parameterTypes = prepared.get(name) ?? (await prepare(name, text));
        const values = params.map((value, index) => {
          if (value === null || value === undefined) return null;
          const serializer = pglite.serializers[parameterTypes[index]];
          return serializer ? serializer(value) : String(value);
        });
        if (settings.length > 0) await pglite.execProtocolStream(set);
        try {
          const answered = await pglite.execProtocolStream(
            messages(serialize.bind({ statement: name, values }), serialize.describe({ type: "P" }), serialize.execute({}), serialize.sync()),
          );
          return parse.parseResults(answered, pglite.parsers)[0].rows as Row[];
        } finally {
          if (settings.length > 0) await pglite.execProtocolStream(reset);
        }
      }),
    );
  }

  const connection: SqlConnection = {
    query: async <Row>(text: string, params?: unknown[]) => (await pglite.query<Row>(text, params)).rows,
    exec: async (text) => {
      await pglite.exec(text);
    },
  };
  return {
    query: <Row>(text: string, params?: unknown[], name?: string) => (name === undefined ? connection.query<Row>(text, params) : runPrepared<Row>(name, text, params ?? [])),
    withConnection: (work) => work(connection),
    runsOnThisThread: true,
  };
}
