import type { SqlConnection } from "../../src/db/sql.ts";

/**
 * A statement's parameters as EXECUTE's arguments, `(a, b, …)`: EXECUTE takes no bound parameters,
 * so each value goes in as the literal PostgreSQL makes of it.
 */
export async function executeArguments(connection: SqlConnection, params: readonly unknown[]): Promise<string> {
  const literals: string[] = [];
  for (const value of params) literals.push((await connection.query<{ q: string }>("select quote_nullable($1::text) as q", [value]))[0].q);
  return `(${literals.join(", ")})`;
}

/** EXPLAIN's rows as one text. */
export const planText = (rows: { "QUERY PLAN": string }[]) => rows.map((row) => row["QUERY PLAN"]).join("\n");

/** The largest "Rows Removed by …" of a plan: how many rows some node read only to throw away. */
export const mostRowsDiscarded = (plan: string) => Math.max(0, ...[...plan.matchAll(/Rows Removed by [\w ]+: (\d+)/g)].map((match) => Number(match[1])));
