import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { fakeClock } from "../helpers/clock.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { type FakeSpotify, startFakeSpotify } from "./fakeSpotify.ts";

/**
 * Polling health on the injected clock: a polled connection shows how its polls went (REST and
 * GraphQL); once its polls have failed for POLLING_FAILED_AFTER, switchyard.polling_failed is
 * emitted — once per run of failures, forwarded when listed — and a successful poll ends the run.
 */
const INTERVAL_MS = 60_000;
const FAILED_AFTER_MS = 60 * 60_000;
const clock = fakeClock(new Date("2026-03-01T12:00:00.000Z"));
let app: TestApp;
let spotify: FakeSpotify;
let receiver: Receiver;
let ada: Operator;

interface Health {
  lastPolledAt: string | null;
  lastSucceededAt: string | null;
  lastError: string | null;
  consecutiveFailures: number;
}

beforeAll(async () => {
  [spotify, receiver] = await Promise.all([startFakeSpotify(), startReceiver()]);
  app = await startTestApp(
    { CONNECTOR_SPOTIFY_API_URL: spotify.apiUrl, POLL_INTERVAL: "60s", POLLING_FAILED_AFTER: "1h", ENCRYPTION_KEY: randomBytes(32).toString("base64") },
    { clock, worker: true },
  );
  ada = await createOperator(app, "Ada");
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: `${receiver.url}/hooks`,
          triggers: [
            { connector: "spotify", trigger: "track_played" },
            { connector: "switchyard", trigger: "polling_failed" },
          ],
        },
      },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app?.close();
  await Promise.all([spotify?.close(), receiver?.close()]);
});

async function connect(connector: string, account: string, token: string) {
  spotify.listener(token);
  return app.database.prisma.connectedAccount.create({
    data: { deploymentId: ada.deploymentId, connector, account, externalId: `user-${account}`, accessTokenEncrypted: app.app.box.seal(token), scopes: [] },
  });
}

async function polling(connector: string, account: string): Promise<Health | null> {
  const response = await fetch(`${app.url}/api/v1/connections/${connector}/${account}`, { headers: { "x-api-key": ada.apiKey } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { polling: Health | null }).polling;
}

const failedEvents = (id: string) =>
  app.database.prisma.triggerEvent.findMany({ where: { connectedAccountId: id, connector: "switchyard", trigger: "polling_failed" }, orderBy: { receivedAt: "asc" } });

/** Moves the clock past the connection's next poll and runs a round. */
async function nextPoll(poller: ReturnType<TestApp["app"]["createPoller"]>, ms = INTERVAL_MS * 1.2) {
  clock.advance(ms);
  await poller.runOnce();
}

test("a poller failing past POLLING_FAILED_AFTER emits switchyard.polling_failed once, forwarded, and recovers", async () => {
  const poller = app.app.createPoller();
  const alice = await connect("spotify", "alice", "token-alice");
  // Listed but never polled yet: health with nothing in it.
  expect(await polling("spotify", "alice")).toEqual({ lastPolledAt: null, lastSucceededAt: null, lastError: null, consecutiveFailures: 0 });

  await poller.runOnce(); // scheduled
  await nextPoll(poller); // the first read succeeds
  const succeededAt = clock.now().toISOString();
  expect(await polling("spotify", "alice")).toEqual({ lastPolledAt: succeededAt, lastSucceededAt: succeededAt, lastError: null, consecutiveFailures: 0 });

  // Spotify goes down: the run of failures starts with the next poll.
  spotify.outage("token-alice", true);
  await nextPoll(poller);
  const firstFailure = clock.now().getTime();
  const failing = await polling("spotify", "alice");
  expect(failing).toMatchObject({ lastPolledAt: clock.now().toISOString(), lastSucceededAt: succeededAt, consecutiveFailures: 1 });
  expect(failing!.lastError).toContain("503");
  expect(await failedEvents(alice.id)).toHaveLength(0);

  // Still short of an hour since the first failure: counted, not announced.
  await nextPoll(poller, FAILED_AFTER_MS - INTERVAL_MS);
  expect((await polling("spotify", "alice"))!.consecutiveFailures).toBe(2);
  expect(await failedEvents(alice.id)).toHaveLength(0);

  // The first poll failing an hour or more after the run began announces it.
  await nextPoll(poller);
  expect(clock.now().getTime() - firstFailure).toBeGreaterThanOrEqual(FAILED_AFTER_MS);
  const [event] = await failedEvents(alice.id);
  expect(event).toBeDefined();
  const forwarded = (await receiver.waitFor((requests) => requests.some((r) => r.body.includes("switchyard.polling_failed")))).find((r) => r.body.includes("switchyard.polling_failed"))!;
  const body = JSON.parse(forwarded.body) as { type: string; account: string; resource?: unknown; data: { connection: { id: string; polling: Health }; error: { code: string; message: string } } };
  expect(body).toMatchObject({ type: "switchyard.polling_failed", account: "alice" });
  expect(body.resource ?? null).toBeNull();
  expect(body.data.error.code).toBe("polling_failed");
  expect(body.data.error.message).toContain("503");
  expect(body.data.connection).toMatchObject({ id: alice.id, polling: { consecutiveFailures: 3, lastSucceededAt: succeededAt } });

  // Once per run: more failures announce nothing more.
  await nextPoll(poller);
  await nextPoll(poller);
  expect(await failedEvents(alice.id)).toHaveLength(1);
  expect((await polling("spotify", "alice"))!.consecutiveFailures).toBe(5);

  // Spotify is back: the run ends, and the health says so on GraphQL as on REST.
  spotify.outage("token-alice", false);
  await nextPoll(poller);
  const recovered = clock.now().toISOString();
  expect(await polling("spotify", "alice")).toEqual({ lastPolledAt: recovered, lastSucceededAt: recovered, lastError: null, consecutiveFailures: 0 });
  const { deployment } = ok(
    await app.gql<{ deployment: { connections: { nodes: { account: string; polling: Health | null }[] } } }, { id: string }>(
      `query($id: ID!) { deployment(id: $id) { connections(filter: { search: "alice" }, first: 5) { nodes { account polling { lastPolledAt lastSucceededAt lastError consecutiveFailures } } } } }`,
      { id: ada.deploymentId },
      { token: ada.token },
    ),
  );
  expect(deployment.connections.nodes).toEqual([{ account: "alice", polling: { lastPolledAt: recovered, lastSucceededAt: recovered, lastError: null, consecutiveFailures: 0 } }]);

  // A new run of failures is announced again once it has lasted as long.
  spotify.outage("token-alice", true);
  await nextPoll(poller);
  await nextPoll(poller, FAILED_AFTER_MS);
  expect(await failedEvents(alice.id)).toHaveLength(2);
});

test("a connection of which nothing is polled shows polling null", async () => {
  await connect("github", "grace", "token-grace");
  expect(await polling("github", "grace")).toBeNull();
});
