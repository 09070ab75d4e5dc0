import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, fetch as fetchOverNewConnection } from "undici";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { openDatabase } from "../../src/db/database.ts";
import { createLogger } from "../../src/log.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { DeploymentDeliveries } from "../helpers/forwarding.ts";
import { fireTestEvent, forwardTo, until } from "../helpers/live.ts";
import { createOperator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { serviceProcess } from "../helpers/serviceProcess.ts";
import { ok } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";

// Each test starts the real process (compiling TypeScript first) more than once.
vi.setConfig({ testTimeout: scaled(180_000) });

/** The process under SIGTERM with deliveries in flight, and the embedded database on a full disk. */
const database = await createTestDatabase();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await database.drop();
});

const env = (extra: Record<string, string> = {}): Record<string, string> => {
  return database.url ? { ...extra, DATABASE_URL: database.url } : { ...extra, DATA_DIR: mkdtempSync(join(tmpdir(), "sy-faults-")) };
};

// While draining, the service closes idle keep-alive connections: a client that reused one at that
// instant would see "other side closed" (as a balancer would, and retry). Each request here opens a
// connection of its own, so the test reads the service's answers, not that race.
const noKeepAlive = new Agent({ pipelining: 0 });
afterAll(() => noKeepAlive.close());
const drainingFetch = (url: string, init: Parameters<typeof fetchOverNewConnection>[1] = {}) =>
  fetchOverNewConnection(url, { ...init, dispatcher: noKeepAlive });

const webhookDuringShutdown = (url: string, deploymentId: string) =>
  drainingFetch(`${url}/webhooks/${deploymentId}/github`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

test("SIGTERM: readiness fails at once, new requests are turned away, and attempts in flight finish and are recorded", async () => {
  const settings = env();
  const service = await serviceProcess(settings);
  await service.start();
  const ada = await createOperator(service.client, "Ada");
  await forwardTo(service.client, ada.deploymentId, `${receiver.url}/slow`, { token: ada.token });
  // The operator's server is slow: it answers only when the test says so.
  receiver.respond((request) => (request.path === "/slow" ? receiver.hold(String(request.headers["webhook-id"])) : 200));
  const fired = await Promise.all([1, 2, 3].map(() => fireTestEvent(service.client, ada.deploymentId, { token: ada.token })));
  await until(() => fired.every((event) => receiver.holding.has(event.id)), "all three attempts to be in flight", 30_000);

  const exited = service.stop();
  await until(async () => (await drainingFetch(`${service.url}/readyz`)).status === 503, "/readyz to fail");
  const readiness = await drainingFetch(`${service.url}/readyz`);
  expect(await readiness.json()).toMatchObject({ code: "shutting_down" });
  const late = await webhookDuringShutdown(service.url, ada.deploymentId);
  expect(late.status).toBe(503);
  expect(late.headers.get("connection")).toBe("close");
  expect(late.headers.get("retry-after")).toMatch(/^\d+$/);

  // The receiver answers now: each attempt is recorded before the process ends, and it ends cleanly.
  for (const event of fired) receiver.release(event.id, 200);
  expect(await exited).toBe(0);

  await service.start();
  const deliveries = ok(await service.client.gql(DeploymentDeliveries, { id: ada.deploymentId }, { token: ada.token })).deployment!.deliveries;
  expect(deliveries.map((delivery) => delivery.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
  for (const event of fired) expect(receiver.byEventId(event.id)).toHaveLength(1); // recorded: never sent twice
  expect(await service.stop()).toBe(0);
});

test("SIGTERM: attempts still in flight when SHUTDOWN_GRACE runs out are cut, and their deliveries released at once", async () => {
  const settings = env({ SHUTDOWN_GRACE: "1s" });
  const service = await serviceProcess(settings);
  await service.start();
  const ada = await createOperator(service.client, "Ada");
  await forwardTo(service.client, ada.deploymentId, `${receiver.url}/stuck`, { token: ada.token });
  receiver.respond((request) => (request.path === "/stuck" ? receiver.hold(String(request.headers["webhook-id"])) : 200));
  const fired = await Promise.all([1, 2].map(() => fireTestEvent(service.client, ada.deploymentId, { token: ada.token })));
  await until(() => fired.every((event) => receiver.holding.has(event.id)), "both attempts to be in flight", 30_000);

  expect(await service.stop()).toBe(0);
  for (const event of fired) receiver.release(event.id, 200);

  // Nothing is lost and nothing waits for its lease: the deliveries are due for the next worker now.
  const reopened = await openDatabase(
    database.url ? { kind: "postgresql", url: database.url, poolSize: 1 } : { kind: "pglite", dataDir: settings.DATA_DIR },
    createLogger("silent"),
  );
  try {
    const rows = await reopened.sql.query<{ status: string; locked_until: Date | null }>("select status::text as status, locked_until from delivery where deployment_id = $1", [ada.deploymentId]);
    expect(rows).toEqual([
      { status: "PENDING", locked_until: null },
      { status: "PENDING", locked_until: null },
    ]);
  } finally {
    await reopened.close();
  }
});

test.skipIf(database.url !== undefined)(
  "a full disk ends the embedded database's process with a clear message, and a restart recovers every accepted event (embedded only)",
  async () => {
    const full = join(mkdtempSync(join(tmpdir(), "sy-disk-")), "disk-is-full");
    const settings = env({ SWITCHYARD_TEST_ONLY_FAIL_DISK_WRITES_WHEN: full });
    const service = await serviceProcess(settings);
    await service.start();
    const ada = await createOperator(service.client, "Ada");
    await forwardTo(service.client, ada.deploymentId, `${receiver.url}/disk`, { token: ada.token });
    receiver.respond(() => 200);
    const accepted = await fireTestEvent(service.client, ada.deploymentId, { token: ada.token });
    await receiver.waitFor(() => receiver.byEventId(accepted.id).length === 1);

    writeFileSync(full, "");
    // The next write fails: the request is not acknowledged, and the process ends instead of hanging.
    const refused = await fireTestEvent(service.client, ada.deploymentId, { token: ada.token }).then(
      () => "acknowledged",
      () => "not acknowledged",
    );
    expect(refused).toBe("not acknowledged");
    const code = await service.stop(); // SIGTERM, or nothing left to signal: either way it must have ended
    expect(code).toBe(74);
    expect(service.output()).toMatch(/the embedded database could not write .*no space left on device/i);

    // Space is back: it starts (the data folder's lock was released), and what was accepted is there.
    rmSync(full);
    await service.start();
    const deliveries = ok(await service.client.gql(DeploymentDeliveries, { id: ada.deploymentId }, { token: ada.token })).deployment!.deliveries;
    expect(deliveries.map((delivery) => delivery.event.id)).toContain(accepted.id);
    expect(await service.stop()).toBe(0);
  },
);
