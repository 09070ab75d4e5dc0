import { createServer } from "node:net";
import { Writable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isDatabaseUnavailable } from "../../src/db/errors.ts";
import { sqlOverPool } from "../../src/db/sql.ts";
import { createEnqueuer, type EventToEnqueue } from "../../src/delivery/queue/enqueue.ts";
import { createAttemptRecorder } from "../../src/delivery/queue/recordAttempts.ts";
import { createLogger } from "../../src/log.ts";
import { fakeClock } from "../helpers/clock.ts";
import { succeededAttempt } from "../helpers/queue.ts";
import { statementRecorder } from "../helpers/statementRecorder.ts";

/**
 * The two group commits (inbound events, delivery attempts) while the database cannot be reached.
 * A batch the database refuses is recorded again one row per statement, so that one bad row fails
 * alone (test/delivery/poisonedBatch.test.ts). A batch refused because the database is away must
 * not be: each row's statement would fail the same way, a full batch of them against a server that
 * is coming back, each with a warning. The whole batch fails at once instead, with the outage's error
 * (its callers answer 503; the attempts' leases run out and they are sent again).
 */
describe("a batch while the database is unreachable", () => {
  let pool: pg.Pool;
  let logged: string[];
  const logger = () =>
    createLogger(
      "warn",
      new Writable({
        write(chunk, _encoding, done) {
          logged.push(String(chunk));
          done();
        },
      }),
    );

  beforeAll(async () => {
    // A port nothing listens on: every connection is refused, as while the server is stopped.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/none`, connectionTimeoutMillis: 2_000 });
  });
  afterAll(() => pool?.end());

  test("of delivery attempts fails whole, in one statement, without a warning", async () => {
    logged = [];
    const { recorder, sent } = statementRecorder(sqlOverPool(pool));
    const record = createAttemptRecorder(recorder, logger(), fakeClock(), 60_000);
    // Finished in the same turn of the event loop: one batch.
    const outcomes = await Promise.allSettled(["dlv_1", "dlv_2", "dlv_3", "dlv_4", "dlv_5"].map((id) => record(succeededAttempt(id))));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"));
    for (const outcome of outcomes) expect(isDatabaseUnavailable((outcome as PromiseRejectedResult).reason)).toBe(true);
    expect(sent).toHaveLength(1);
    expect(logged).toEqual([]);
  });

  test("of inbound events fails whole, in one statement, without a warning", async () => {
    logged = [];
    const { recorder, sent } = statementRecorder(sqlOverPool(pool));
    const record = createEnqueuer({ sql: recorder, clock: fakeClock(), logger: logger(), reserve: () => undefined });
    const event = (n: number): EventToEnqueue => ({
      eventId: `evt_${n}`,
      deliveryId: `dlv_${n}`,
      deploymentId: "dep_1",
      connectedAccountId: null,
      connector: "github",
      trigger: "issue_opened",
      account: "alice",
      payloadJson: JSON.stringify({ number: n }),
      occurredAt: new Date(),
      dedupeKey: `github:${n}`,
      forwardUnlisted: false,
      routeBy: null,
      routeByMetadata: null,
      bodyClaim: null,
    });
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => record(event(n))));

    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"));
    for (const outcome of outcomes) expect(isDatabaseUnavailable((outcome as PromiseRejectedResult).reason)).toBe(true);
    expect(sent).toHaveLength(1);
    expect(logged).toEqual([]);
  });
});
