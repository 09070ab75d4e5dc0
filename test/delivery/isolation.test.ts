import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

// Per-destination isolation (DELIVERY_MAX_IN_FLIGHT_PER_URL): deployment A forwards to a receiver
// that never answers, deployment B to a healthy one. B's events all arrive while A's attempts in
// flight never exceed the cap. Counts only: how fast B's arrive is the benchmark's business.
const CAP = 3;
const EVENTS = 12;

let app: TestApp;
let healthy: Receiver;
/** Accepts requests and never answers them; counts them (and how many were open at once at most). */
const hanging = {
  open: [] as ServerResponse[],
  received: 0,
  mostOpen: 0,
  server: createServer((_req: IncomingMessage, res: ServerResponse) => {
    hanging.received++;
    hanging.open.push(res);
    hanging.mostOpen = Math.max(hanging.mostOpen, hanging.open.filter((r) => !r.destroyed && !r.writableEnded).length);
  }),
  url: "",
};

beforeAll(async () => {
  healthy = await startReceiver();
  await new Promise<void>((resolve) => hanging.server.listen(0, "127.0.0.1", resolve));
  hanging.url = `http://127.0.0.1:${(hanging.server.address() as AddressInfo).port}/never`;
  // Attempts to the hanging receiver stay in flight for the whole test (the timeout is far away).
  app = await startTestApp({ DELIVERY_MAX_IN_FLIGHT_PER_URL: String(CAP), DELIVERY_TIMEOUT_MS: "60000" }, { worker: true });
});
afterAll(async () => {
  // Cut the hanging requests first: their attempts fail at once and the worker can stop.
  hanging.server.closeAllConnections();
  await new Promise((resolve) => hanging.server.close(resolve));
  await app?.close();
  await healthy?.close();
});

async function forwardingTo(url: string, name: string): Promise<Operator> {
  const operator = await createOperator(app, name);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: url, triggers: [] } }, { token: operator.token }));
  return operator;
}

async function sendTests(operator: Operator, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const event = ok(await app.gql(SendTestEvent, { deploymentId: operator.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: operator.token }));
    ids.push(event.sendTestEvent.id);
  }
  return ids;
}

/** Attempts in flight to `url` as the table says: leased rows not yet recorded. */
async function leased(url: string): Promise<number> {
  const rows = await app.database.sql.query<{ n: number | string }>(
    `select count(*) as n from delivery where url = $1 and status = 'PENDING' and locked_until >= now()`,
    [url],
  );
  return Number(rows[0].n);
}

describe("per-destination isolation", () => {
  test("a receiver that never answers holds at most DELIVERY_MAX_IN_FLIGHT_PER_URL attempts; another deployment's events all arrive", async () => {
    const a = await forwardingTo(hanging.url, "Hanging");
    const b = await forwardingTo(`${healthy.url}/b`, "Healthy");

    await sendTests(a, EVENTS);
    // The hanging receiver fills its share first.
    const deadline = Date.now() + 60_000;
    while (hanging.received < CAP && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(hanging.received).toBe(CAP);

    const sent = await sendTests(b, EVENTS);
    await healthy.waitFor((requests) => sent.every((id) => requests.some((r) => r.headers["webhook-id"] === id)), 60_000);
    for (const id of sent) expect(healthy.byEventId(id).map((r) => r.status)).toEqual([200]);

    // A's other events are still due, not claimed: the cap held in the table and at the receiver.
    expect(await leased(hanging.url)).toBe(CAP);
    expect(hanging.received).toBe(CAP);
    expect(hanging.mostOpen).toBe(CAP);
    const due = await app.database.sql.query<{ n: number | string }>(
      `select count(*) as n from delivery where deployment_id = $1 and status = 'PENDING' and locked_until is null and next_attempt_at <= now()`,
      [a.deploymentId],
    );
    expect(Number(due[0].n)).toBe(EVENTS - CAP);
  });

  /** How many of the deployment's deliveries are recorded SUCCEEDED. */
  const succeeded = async (deploymentId: string) =>
    Number((await app.database.sql.query<{ n: number | string }>(`select count(*) as n from delivery where deployment_id = $1 and status = 'SUCCEEDED'`, [deploymentId]))[0].n);

  /**
   * Runs `work` while no attempt can be recorded (a second connection holds delivery_attempt, which
   * recording inserts into), checks that none was, then waits for all `count` to be recorded once
   * the lock is gone (at least once: recorded later).
   */
  async function whileRecordingWaits(operator: Operator, count: number, work: () => Promise<void>) {
    const blocker = new pg.Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query("lock table delivery_attempt in exclusive mode");
      await work();
      expect(await succeeded(operator.deploymentId)).toBe(0);
    } finally {
      await blocker.query("rollback").catch(() => {});
      await blocker.end();
    }
    await until(async () => (await succeeded(operator.deploymentId)) === count, "every attempt to be recorded once the database lets it");
  }

  const allArrived = (sent: string[], timeoutMs: number) =>
    healthy.waitFor((requests) => sent.every((id) => requests.some((r) => r.headers["webhook-id"] === id)), timeoutMs);

  // The cap counts requests the receiver is holding, not answers still being recorded: while the
  // database is slow to record attempts, a URL whose receiver answers keeps getting its events
  // (they are recorded later, at least once). Needs a second connection to slow the recording
  // down, so PostgreSQL only (an embedded database has one connection).
  test.skipIf(!process.env.TEST_DATABASE_URL)("an answered attempt still being recorded does not hold the URL's place", async () => {
    const c = await forwardingTo(`${healthy.url}/c`, "Slow");
    await whileRecordingWaits(c, CAP * 3, async () => {
      // More answered than the cap while none could be recorded.
      await allArrived(await sendTests(c, CAP * 3), 60_000);
    });
  });

  // The same for deliveries the worker claims (here: test events held until a forwarding URL is
  // saved): the claim counts a URL's leased rows, and a lease lasts until its attempt is recorded,
  // so the worker tells it which of them are only waiting to be recorded. Counted, three answered
  // attempts held this URL at its cap until the database recorded them.
  test.skipIf(!process.env.TEST_DATABASE_URL)("claimed deliveries: an answered attempt still being recorded does not hold the URL's place either", async () => {
    const held = await createOperator(app, "Held");
    const sent = await sendTests(held, CAP * 3);
    await whileRecordingWaits(held, CAP * 3, async () => {
      // Saving the URL makes the held deliveries due: only a claim takes them.
      ok(await app.gql(SaveForwardingSettings, { deploymentId: held.deploymentId, input: { forwardingUrl: `${healthy.url}/held`, triggers: [] } }, { token: held.token }));
      await allArrived(sent, 30_000);
    });
  });
});
