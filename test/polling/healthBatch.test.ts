import { expect, test } from "vitest";
import type { Sql } from "../../src/db/sql.ts";
import { createPollingHealth } from "../../src/polling/health.ts";

/** A page of connections asks for each one's polling health (GraphQL resolves the field per node): one statement answers them all. */
test("reads asked for in one turn share one statement, and each gets its own connection's health", async () => {
  const statements: unknown[][] = [];
  const sql = {
    async query(_text: string, params: unknown[]) {
      statements.push(params);
      return (params[0] as string[]).map((id) => ({ id, listed: id !== "quiet", last_polled_at: null, last_poll_succeeded_at: null, last_poll_error: null, poll_failures: id === "failing" ? 2 : 0 }));
    },
  } as unknown as Sql;
  const health = createPollingHealth({ sql, pairs: () => ({ connectors: ["spotify"], triggers: ["track_played"], intervalsMs: [60_000] }) });

  const [failing, quiet, fine] = await Promise.all(["failing", "quiet", "fine"].map(async (id) => (await health.read([id])).get(id)));
  expect(statements).toHaveLength(1);
  expect((statements[0][0] as string[]).sort()).toEqual(["failing", "fine", "quiet"]);
  expect(failing).toEqual({ lastPolledAt: null, lastSucceededAt: null, lastError: null, consecutiveFailures: 2 });
  expect(quiet).toBeNull();
  expect(fine?.consecutiveFailures).toBe(0);

  // The next turn is a new statement.
  await health.read(["fine"]);
  expect(statements).toHaveLength(2);
});
