import { type Client, createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { fireTestEvent, forwardTo, type Live, subscribeSse, subscribeWs, until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Live subscriptions are bounded: per websocket, per principal (a user or an API key) and per
 * client address — SSE streams included, which also count as connections of their address
 * against WS_MAX_PER_ADDRESS. Over a cap the one subscription gets RATE_LIMITED with the limit;
 * the socket and its other subscriptions carry on. (An outside review opened 3,000 subscriptions
 * on one socket, and any number of SSE streams from one address.)
 *
 * Each story runs from its own client address (X-Forwarded-For behind TRUST_PROXY=1).
 */
const PER_SOCKET = 3;
const PER_PRINCIPAL = 5;
const PER_ADDRESS = 7;
const CONNECTIONS_PER_ADDRESS = 4;

let app: TestApp;
let receiver: Receiver;
let ada: Operator;
let bea: Operator;
const clients: Client[] = [];
const streams: Live[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({
    TRUST_PROXY: "1",
    WS_MAX_PER_ADDRESS: String(CONNECTIONS_PER_ADDRESS),
    SUBSCRIPTIONS_MAX_PER_SOCKET: String(PER_SOCKET),
    SUBSCRIPTIONS_MAX_PER_PRINCIPAL: String(PER_PRINCIPAL),
    SUBSCRIPTIONS_MAX_PER_ADDRESS: String(PER_ADDRESS),
  });
  ada = await createOperator(app, "Ada");
  bea = await createOperator(app, "Bea");
  await forwardTo(app, ada.deploymentId, receiver.url, { token: ada.token });
});
afterAll(async () => {
  for (const stream of streams) stream.stop();
  await Promise.all(clients.map((client) => client.dispose()));
  await app?.close();
  await receiver?.close();
});

const EVENTS = `subscription($d: ID!) { forwardedEvents(deploymentId: $d) { id } }`;
const active = () => app.app.bus.activeSubscriptions();

/** A graphql-ws client from `address`, with credentials in connectionParams. */
function socketFrom(address: string, connectionParams: Record<string, string>): Client {
  const client = createClient({
    url: `${app.url.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { "x-forwarded-for": address } });
      }
    },
    connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(client);
  return client;
}

/** Starts `count` subscriptions to the deployment's events and waits until they all run. */
async function subscribe(client: Client, deploymentId: string, count: number): Promise<Live[]> {
  const before = active();
  const started = Array.from({ length: count }, () => subscribeWs(client, EVENTS, { d: deploymentId }));
  await until(() => active() === before + count, `${count} subscriptions to start`);
  return started;
}

async function sse(address: string, caller: Record<string, string>, deploymentId: string) {
  const stream = await subscribeSse(app.url, EVENTS, { d: deploymentId }, { "x-forwarded-for": address, ...caller });
  streams.push(stream);
  return stream;
}

/**
 * The error that refused a subscription: an `error` message when the socket refused it (like the
 * cost limit), else — refused where subscriptions start, like an authorization failure — its one
 * result, followed by `complete`.
 */
async function refusal(live: Live) {
  const ending = await live.ended;
  if (ending.kind === "error") return ending.errors![0];
  expect(ending.kind).toBe("complete");
  return (await live.next()).errors![0];
}

describe("one websocket", () => {
  test(`runs at most SUBSCRIPTIONS_MAX_PER_SOCKET (${PER_SOCKET}) operations; the next is refused and the others carry on`, async () => {
    const client = socketFrom("198.51.100.1", { "x-api-key": ada.apiKey });
    const running = await subscribe(client, ada.deploymentId, PER_SOCKET);

    const extra = subscribeWs(client, EVENTS, { d: ada.deploymentId });
    const error = await refusal(extra);
    expect(error.extensions).toMatchObject({ code: "RATE_LIMITED", limit: PER_SOCKET });
    expect(error.message).toMatch(/At most 3 operations may run at once on one websocket/);

    // The same socket still serves its subscriptions…
    const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
    for (const live of running) expect((await live.next()).data?.forwardedEvents).toEqual({ id: fired.id });
    // …and takes a new one once one ends.
    const before = active();
    running[0].stop();
    await until(() => active() === before - 1, "the stopped subscription to end");
    const again = subscribeWs(client, EVENTS, { d: ada.deploymentId });
    await until(() => active() === before, "the new subscription to start");
    for (const live of [again, ...running.slice(1)]) live.stop();
    await until(() => active() === 0, "every subscription to end");
  });
});

describe("one principal", () => {
  test(`holds at most SUBSCRIPTIONS_MAX_PER_PRINCIPAL (${PER_PRINCIPAL}) over several sockets and SSE; other principals are not affected`, async () => {
    const first = socketFrom("198.51.100.2", { authorization: `Bearer ${bea.token}` });
    const second = socketFrom("198.51.100.3", { authorization: `Bearer ${bea.token}` });
    const running = [...(await subscribe(first, bea.deploymentId, 3)), ...(await subscribe(second, bea.deploymentId, 2))];

    const overSocket = await refusal(subscribeWs(second, EVENTS, { d: bea.deploymentId }));
    expect(overSocket.extensions).toMatchObject({ code: "RATE_LIMITED", limit: PER_PRINCIPAL });
    expect(overSocket.message).toMatch(/one user or API key/);

    const overSse = await sse("198.51.100.4", { authorization: `Bearer ${bea.token}` }, bea.deploymentId);
    const result = await overSse.next();
    expect(result.errors?.[0].extensions).toMatchObject({ code: "RATE_LIMITED", limit: PER_PRINCIPAL });
    expect((await overSse.ended).kind).toBe("complete");

    // Ada, from the same addresses, is a principal of her own.
    const adas = await subscribe(socketFrom("198.51.100.2", { "x-api-key": ada.apiKey }), ada.deploymentId, 1);

    for (const live of [...running, ...adas]) live.stop();
    await until(() => active() === 0, "every subscription to end");
  });
});

describe("one client address", () => {
  test(`SSE streams count against WS_MAX_PER_ADDRESS (${CONNECTIONS_PER_ADDRESS}) with websockets`, async () => {
    const address = "203.0.113.10";
    const open = [];
    for (let i = 0; i < CONNECTIONS_PER_ADDRESS - 1; i++) open.push(await sse(address, { "x-api-key": ada.apiKey }, ada.deploymentId));
    await until(() => active() === CONNECTIONS_PER_ADDRESS - 1, "the streams to start");
    expect(open.every((stream) => stream.status === 200)).toBe(true);

    // One socket fills the address's last place; a further upgrade is refused before the handshake…
    const lastPlace = await subscribe(socketFrom(address, { "x-api-key": ada.apiKey }), ada.deploymentId, 1);
    const refusedUpgrade = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${app.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", { headers: { "x-forwarded-for": address } });
      socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      socket.once("open", () => resolve(101));
    });
    expect(refusedUpgrade).toBe(429);
    // …and so is another event stream.
    const extra = await sse(address, { "x-api-key": ada.apiKey }, ada.deploymentId);
    expect((await extra.next()).errors?.[0].extensions).toMatchObject({ code: "RATE_LIMITED", limit: CONNECTIONS_PER_ADDRESS });

    // Another address is not affected.
    const elsewhere = await sse("203.0.113.11", { "x-api-key": ada.apiKey }, ada.deploymentId);
    await until(() => active() === CONNECTIONS_PER_ADDRESS + 1, "the other address's stream to start");

    // A stream that ends gives its place back.
    open[0].stop();
    await until(() => active() === CONNECTIONS_PER_ADDRESS, "the stopped stream to end");
    const replacement = await sse(address, { "x-api-key": ada.apiKey }, ada.deploymentId);
    await until(() => active() === CONNECTIONS_PER_ADDRESS + 1, "the replacement stream to start");

    for (const live of [...open.slice(1), ...lastPlace, elsewhere, replacement]) live.stop();
    await until(() => active() === 0, "every subscription to end");
  });

  test(`runs at most SUBSCRIPTIONS_MAX_PER_ADDRESS (${PER_ADDRESS}) subscriptions, whoever's`, async () => {
    const address = "203.0.113.20";
    const running = [
      ...(await subscribe(socketFrom(address, { "x-api-key": ada.apiKey }), ada.deploymentId, 3)),
      ...(await subscribe(socketFrom(address, { authorization: `Bearer ${ada.token}` }), ada.deploymentId, 3)),
    ];
    const beas = socketFrom(address, { authorization: `Bearer ${bea.token}` });
    running.push(...(await subscribe(beas, bea.deploymentId, 1)));
    const error = await refusal(subscribeWs(beas, EVENTS, { d: bea.deploymentId }));
    expect(error.extensions).toMatchObject({ code: "RATE_LIMITED", limit: PER_ADDRESS });
    expect(error.message).toMatch(/from one address/);
    for (const live of running) live.stop();
    await until(() => active() === 0, "every subscription to end");
  });
});
