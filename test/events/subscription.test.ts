import { randomBytes } from "node:crypto";
import { type DocumentNode, print } from "graphql";
import type { Client } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { ForwardedEventMessage } from "../../src/events/messages.ts";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo, type Live, subscribeSse, subscribeWs, until, wsClient } from "../helpers/live.ts";
import { createOperator, GenerateApiKey, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

// Typed documents (codegen checks them against the schema); sent as text by the live clients.
const ForwardedEvents = graphql(`
  subscription ForwardedEvents($deploymentId: ID!) {
    forwardedEvents(deploymentId: $deploymentId) {
      id type connector trigger account occurredAt payload
      delivery { id status attempts lastStatusCode }
    }
  }
`);
const DeliveryUpdates = graphql(`
  subscription DeliveryUpdates($deploymentId: ID!) {
    deliveryUpdates(deploymentId: $deploymentId) { id eventId status attempts lastStatusCode lastError nextAttemptAt }
  }
`);
const text = (document: DocumentNode) => print(document);

const BUFFER = 3; // small, so the slow-consumer test needs only a handful of events

let app: TestApp;
let ada: Operator;
let bob: Operator;
let adaProductionKey: string;
let receiver: Receiver;
const clients: Client[] = [];
const lives: Live[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({ SUBSCRIPTION_BUFFER_SIZE: String(BUFFER), DELIVERY_RETRY_SCHEDULE: "100ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  bob = await createOperator(app, "Bob");
  await forwardTo(app, ada.deploymentId, `${receiver.url}/ada`, { token: ada.token });
  await forwardTo(app, bob.deploymentId, `${receiver.url}/bob`, { token: bob.token });
  adaProductionKey = ok(await app.gql(GenerateApiKey, { deploymentId: ada.productionDeploymentId }, { token: ada.token })).generateApiKey.apiKey;
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});
afterEach(async () => {
  for (const live of lives.splice(0)) live.stop();
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  await until(() => app.app.bus.activeSubscriptions() === 0, "subscriptions to close");
});

const active = () => app.app.bus.activeSubscriptions();

function client(options: Parameters<typeof wsClient>[1]) {
  const created = wsClient(app.url, options);
  clients.push(created);
  return created;
}

function subscribe(c: Client, document: DocumentNode, deploymentId: string) {
  const live = subscribeWs(c, text(document), { deploymentId });
  lives.push(live);
  return live;
}

/** What the forwarding pipeline publishes once an event is recorded (the transport under test here). */
function forwardedEvent(deploymentId: string, overrides: Partial<ForwardedEventMessage> = {}): ForwardedEventMessage {
  const id = `evt_${randomBytes(8).toString("hex")}`;
  return {
    id,
    deploymentId,
    type: "github.issue_opened",
    connector: "github",
    trigger: "issue_opened",
    account: "alice",
    occurredAt: "2026-01-01T00:00:00.000Z",
    payload: { issue: { number: 7, title: "It broke" } },
    delivery: { id: `dl_${id}`, status: "PENDING", attempts: 0, lastStatusCode: null },
    ...overrides,
  };
}

function publish(message: ForwardedEventMessage) {
  app.app.bus.publish("forwardedEvent", message.deploymentId, message);
}

describe("forwardedEvents over graphql-ws", () => {
  test("an API key's subscriber receives each event of its deployment as it is recorded, then its delivery's progress", async () => {
    const c = client({ connectionParams: { "x-api-key": ada.apiKey } });
    const events = subscribe(c, ForwardedEvents, ada.deploymentId);
    const updates = subscribe(c, DeliveryUpdates, ada.deploymentId);
    await until(() => active() === 2, "the subscriptions to start");

    await fireTestEvent(app, bob.deploymentId, { token: bob.token }); // another tenant's event is not seen
    const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });

    const { forwardedEvents } = (await events.next()).data!;
    expect(forwardedEvents).toEqual({
      id: fired.id,
      type: "github.issue_opened",
      connector: "github",
      trigger: "issue_opened",
      account: "test",
      occurredAt: fired.occurredAt,
      payload: fired.payload,
      delivery: { id: expect.any(String), status: "PENDING", attempts: 0, lastStatusCode: null },
    });
    // The worker delivers it to the receiver, and the subscriber hears how it went.
    expect((await updates.next()).data?.deliveryUpdates).toEqual({
      id: forwardedEvents.delivery.id,
      eventId: fired.id,
      status: "SUCCEEDED",
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(receiver.byEventId(fired.id)).toHaveLength(1);
  });

  test("a console session works as a bearer token in connectionParams and as the session cookie", async () => {
    const byBearer = subscribe(client({ connectionParams: { authorization: `Bearer ${ada.token}` } }), ForwardedEvents, ada.deploymentId);
    const byCookie = subscribe(client({ cookie: `sy_session=${ada.token}` }), ForwardedEvents, ada.deploymentId);
    await until(() => active() === 2, "both subscriptions to start");

    const event = forwardedEvent(ada.deploymentId);
    publish(event);
    expect((await byBearer.next()).data?.forwardedEvents.id).toBe(event.id);
    expect((await byCookie.next()).data?.forwardedEvents.id).toBe(event.id);
  });

  test("deliveryUpdates reports a failed attempt with its status code and when the next one is due", async () => {
    receiver.respond((request, n) => (request.path === "/ada" && n === 1 ? 503 : 200));
    try {
      const live = subscribe(client({ connectionParams: { "x-api-key": ada.apiKey } }), DeliveryUpdates, ada.deploymentId);
      await until(() => active() === 1, "the subscription to start");
      const fired = await fireTestEvent(app, ada.deploymentId, { apiKey: ada.apiKey });

      const failed = (await live.next()).data?.deliveryUpdates;
      expect(failed).toMatchObject({ eventId: fired.id, status: "PENDING", attempts: 1, lastStatusCode: 503 });
      expect(Date.parse(failed.nextAttemptAt)).not.toBeNaN();
      expect((await live.next()).data?.deliveryUpdates).toMatchObject({ eventId: fired.id, status: "SUCCEEDED", attempts: 2, lastStatusCode: 200, nextAttemptAt: null });
    } finally {
      receiver.respond(() => 200);
    }
  });
});

describe("who may subscribe", () => {
  test.each([
    ["another organization's user", () => ({ connectionParams: { authorization: `Bearer ${bob.token}` } })],
    ["another organization's API key", () => ({ connectionParams: { "x-api-key": bob.apiKey } })],
    ["another deployment's API key of the same organization", () => ({ connectionParams: { "x-api-key": adaProductionKey } })],
  ])("%s is refused with FORBIDDEN", async (_who, options) => {
    for (const document of [ForwardedEvents, DeliveryUpdates]) {
      const live = subscribe(client(options()), document, ada.deploymentId);
      const result = await live.next();
      expect(result.data ?? null).toBeNull();
      expect(result.errors?.[0]).toMatchObject({ message: "You do not have access to this resource.", extensions: { code: "FORBIDDEN" } });
      expect(await live.ended).toEqual({ kind: "complete" });
    }
  });

  test("nobody (no credentials) is refused with UNAUTHENTICATED", async () => {
    const live = subscribe(client({}), ForwardedEvents, ada.deploymentId);
    const result = await live.next();
    expect(result.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
    expect(result.errors?.[0]?.message).toMatch(/API key/);
  });

  test("a wrong API key or an expired session closes the connection with 4401 and says why", async () => {
    const badKey = subscribe(client({ connectionParams: { "x-api-key": "sy_test_notarealkeynotarealkeynotarealkey00" } }), ForwardedEvents, ada.deploymentId);
    expect(await badKey.ended).toEqual({ kind: "closed", code: 4401, reason: expect.stringMatching(/API key is not valid/) });

    const badToken = subscribe(client({ connectionParams: { authorization: "Bearer not-a-session" } }), ForwardedEvents, ada.deploymentId);
    expect(await badToken.ended).toEqual({ kind: "closed", code: 4401, reason: expect.stringMatching(/session has expired/) });
  });

  test("an unknown deployment id is refused like a foreign one", async () => {
    const live = subscribe(client({ connectionParams: { "x-api-key": ada.apiKey } }), ForwardedEvents, "no-such-deployment");
    expect((await live.next()).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
  });

  test("a malformed subscription gets a validation error, not a closed socket", async () => {
    const live = subscribeWs(client({ connectionParams: { "x-api-key": ada.apiKey } }), "subscription { forwardedEvents { id } }", {});
    lives.push(live);
    const ending = await live.ended;
    expect(ending.kind).toBe("error");
    expect(ending.kind === "error" && ending.errors?.[0]?.message).toMatch(/deploymentId/);
  });
});

describe("forwardedEvents over SSE", () => {
  test("the same subscription streams as text/event-stream with the x-api-key header", async () => {
    const live = await subscribeSse(app.url, text(ForwardedEvents), { deploymentId: ada.deploymentId }, { "x-api-key": ada.apiKey });
    lives.push(live);
    expect(live.status).toBe(200);
    await until(() => active() === 1, "the subscription to start");

    const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
    expect((await live.next()).data?.forwardedEvents).toMatchObject({ id: fired.id, account: "test", delivery: { status: "PENDING" } });

    live.stop();
    await until(() => active() === 0, "a closed stream to unsubscribe");
  });

  test("over SSE too, another organization's user gets FORBIDDEN and nobody gets UNAUTHENTICATED", async () => {
    const foreign = await subscribeSse(app.url, text(ForwardedEvents), { deploymentId: ada.deploymentId }, { authorization: `Bearer ${bob.token}` });
    lives.push(foreign);
    expect((await foreign.next()).errors?.[0]?.extensions?.code).toBe("FORBIDDEN");

    const nobody = await subscribeSse(app.url, text(ForwardedEvents), { deploymentId: ada.deploymentId });
    lives.push(nobody);
    expect((await nobody.next()).errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });
});

describe("a consumer that falls behind", () => {
  test(`gets what was buffered, then a notice of how many were dropped, and the subscription ends`, async () => {
    const live = subscribe(client({ connectionParams: { "x-api-key": ada.apiKey } }), ForwardedEvents, ada.deploymentId);
    await until(() => active() === 1, "the subscription to start");

    // Ten events in one burst: from the server's side the same as a consumer too slow to keep up.
    const events = Array.from({ length: 10 }, () => forwardedEvent(ada.deploymentId));
    for (const event of events) publish(event);

    const received: string[] = [];
    let notice: Awaited<ReturnType<Live["next"]>> | undefined;
    while (!notice) {
      const result = await live.next();
      if (result.errors) notice = result;
      else received.push(result.data!.forwardedEvents.id);
    }
    // At most the buffer (plus the one already handed to the sender), oldest first.
    expect(received.length).toBeGreaterThanOrEqual(BUFFER);
    expect(received.length).toBeLessThanOrEqual(BUFFER + 1);
    expect(received).toEqual(events.slice(0, received.length).map((event) => event.id));
    expect(notice.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/fell more than 3 messages behind.*Subscribe again/),
      extensions: { code: "EVENTS_DROPPED", dropped: 10 - received.length },
    });
    expect(await live.ended).toEqual({ kind: "complete" });
    expect(active()).toBe(0);
  });
});
