import { randomBytes } from "node:crypto";
import { print } from "graphql";
import type { Client } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo, type Live, type LiveResult, subscribeSse, subscribeWs, until, wsClient } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

// Resuming forwardedEvents after the last event a client saw: the backlog from the database, then
// live events, each exactly once, over graphql-ws and over SSE (with Last-Event-ID).
const ResumeForwardedEvents = graphql(`
  subscription ResumeForwardedEvents($deploymentId: ID!, $after: ID) {
    forwardedEvents(deploymentId: $deploymentId, after: $after) { id type account delivery { status } }
  }
`);
const query = print(ResumeForwardedEvents);

const REPLAY_LIMIT = 4;

let app: TestApp;
let ada: Operator;
let bob: Operator;
const clients: Client[] = [];
const lives: Live[] = [];

beforeAll(async () => {
  // No worker: deliveries stay PENDING, and the events are what is under test.
  app = await startTestApp({ SUBSCRIPTION_REPLAY_LIMIT: String(REPLAY_LIMIT) });
  ada = await createOperator(app, "Ada");
  bob = await createOperator(app, "Bob");
  await forwardTo(app, ada.deploymentId, "http://127.0.0.1:9/ada", { token: ada.token });
  await forwardTo(app, bob.deploymentId, "http://127.0.0.1:9/bob", { token: bob.token });
});
afterAll(async () => {
  await app?.close();
});
afterEach(async () => {
  for (const live of lives.splice(0)) live.stop();
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await until(() => app.app.bus.activeSubscriptions() === 0, "subscriptions to close");
});

const active = () => app.app.bus.activeSubscriptions();
const fire = async (n: number) => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await fireTestEvent(app, ada.deploymentId, { token: ada.token })).id);
  return ids;
};

function overWs(variables: Record<string, unknown>) {
  const client = wsClient(app.url, { connectionParams: { "x-api-key": ada.apiKey } });
  clients.push(client);
  const live = subscribeWs(client, query, variables);
  lives.push(live);
  return live;
}

async function overSse(variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  const live = await subscribeSse(app.url, query, variables, { "x-api-key": ada.apiKey, ...headers });
  lives.push(live);
  return live;
}

async function take(live: Live, n: number): Promise<LiveResult[]> {
  const results: LiveResult[] = [];
  for (let i = 0; i < n; i++) results.push(await live.next());
  return results;
}
const idsOf = (results: LiveResult[]) => results.map((result) => result.data?.forwardedEvents?.id as string);

describe("forwardedEvents(after:) over graphql-ws", () => {
  test("sends the events after the given one, oldest first, then live ones, and nothing twice", async () => {
    const [anchor, ...missed] = await fire(3);
    const live = overWs({ deploymentId: ada.deploymentId, after: anchor });
    const replayed = await take(live, 2);
    expect(idsOf(replayed)).toEqual(missed);
    expect(replayed[0].data?.forwardedEvents).toMatchObject({ type: "github.issue_opened", account: "test", delivery: { status: "PENDING" } });
    expect(replayed[0].extensions?.skipped).toBeUndefined();

    // Bob's events are not Ada's backlog; live events follow the backlog.
    await fireTestEvent(app, bob.deploymentId, { token: bob.token });
    const [later] = await fire(1);
    expect(idsOf(await take(live, 1))).toEqual([later]);
  });

  test("an event published live that the backlog already sent is not sent again (the seam)", async () => {
    const [anchor, missed] = await fire(2);
    const live = overWs({ deploymentId: ada.deploymentId, after: anchor });
    expect(idsOf(await take(live, 1))).toEqual([missed]);
    // What a publish that lands after the backlog read looks like: the same event, live.
    app.app.bus.publish("forwardedEvent", ada.deploymentId, {
      id: missed,
      deploymentId: ada.deploymentId,
      type: "github.issue_opened",
      connector: "github",
      trigger: "issue_opened",
      account: "test",
      occurredAt: new Date().toISOString(),
      payload: {},
      delivery: null,
    });
    const [next] = await fire(1);
    expect(idsOf(await take(live, 1))).toEqual([next]);
  });

  test("resuming while events keep arriving loses none and repeats none", async () => {
    const [anchor] = await fire(1);
    const fired: string[] = [];
    let stop = false;
    const firing = (async () => {
      while (!stop && fired.length < 40) fired.push(...(await fire(1)));
    })();
    await until(() => fired.length >= 5, "a few events to be accepted before resuming");
    const live = overWs({ deploymentId: ada.deploymentId, after: anchor });
    await until(() => fired.length >= 15, "more events to be accepted while resumed", 60_000);
    stop = true;
    await firing;

    // The backlog may be longer than SUBSCRIPTION_REPLAY_LIMIT: then the oldest are skipped, and said so.
    const first = await live.next();
    const skipped = Number(first.extensions?.skipped ?? 0);
    const received = idsOf([first]);
    while (received.length + skipped < fired.length) received.push(...idsOf(await take(live, 1)));
    expect([...received].sort()).toEqual(fired.slice(skipped).sort());
    expect(new Set(received).size).toBe(received.length);
  });

  test(`more missed events than SUBSCRIPTION_REPLAY_LIMIT: the newest ${REPLAY_LIMIT} are sent, and the first message says how many were skipped`, async () => {
    const [anchor, ...missed] = await fire(REPLAY_LIMIT + 3);
    const live = overWs({ deploymentId: ada.deploymentId, after: anchor });
    const replayed = await take(live, REPLAY_LIMIT);
    expect(idsOf(replayed)).toEqual(missed.slice(-REPLAY_LIMIT));
    expect(replayed[0].extensions).toEqual({ skipped: 2 });
    expect(replayed.slice(1).map((result) => result.extensions?.skipped)).toEqual([undefined, undefined, undefined]);
  });

  test("an `after` that is not an event of this deployment is BAD_USER_INPUT", async () => {
    const bobs = (await fireTestEvent(app, bob.deploymentId, { token: bob.token })).id;
    for (const after of [bobs, `evt_${randomBytes(12).toString("hex")}`]) {
      const live = overWs({ deploymentId: ada.deploymentId, after });
      const [error] = (await live.next()).errors ?? [];
      expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
      expect(error?.message).toContain(after);
      expect((await live.ended).kind).toBe("complete");
    }
  });
});

describe("forwardedEvents over SSE", () => {
  test("each message carries `id: <event id>`", async () => {
    const live = await overSse({ deploymentId: ada.deploymentId });
    await until(() => active() === 1, "the stream to start");
    const [fired] = await fire(1);
    const [message] = await take(live, 1);
    expect(message.id).toBe(fired);
    expect(message.data?.forwardedEvents?.id).toBe(fired);
  });

  test("Last-Event-ID resumes like `after`, with the limit and `extensions.skipped`", async () => {
    const [anchor, ...missed] = await fire(REPLAY_LIMIT + 2);
    const live = await overSse({ deploymentId: ada.deploymentId }, { "last-event-id": anchor });
    const replayed = await take(live, REPLAY_LIMIT);
    expect(replayed.map((result) => result.id)).toEqual(missed.slice(-REPLAY_LIMIT));
    expect(idsOf(replayed)).toEqual(missed.slice(-REPLAY_LIMIT));
    expect(replayed[0].extensions).toEqual({ skipped: 1 });
    const [later] = await fire(1);
    expect((await take(live, 1))[0].id).toBe(later);
  });

  test("`after` works over SSE too, and a wrong one is BAD_USER_INPUT", async () => {
    const [anchor, missed] = await fire(2);
    const live = await overSse({ deploymentId: ada.deploymentId, after: anchor });
    expect((await take(live, 1))[0].id).toBe(missed);

    const wrong = await overSse({ deploymentId: ada.deploymentId }, { "last-event-id": "evt_nope" });
    expect((await wrong.next()).errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
  });
});
