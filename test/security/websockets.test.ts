import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { fireTestEvent, forwardTo, subscribeWs, until, wsClient } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The graphql-ws endpoint's abuse bounds and CSRF defence, spoken as the raw protocol
 * (graphql-transport-ws) where a test needs the upgrade's headers or the close code.
 */

const ANONYMOUS_TIMEOUT_MS = 1500;
const MAX_PER_ADDRESS = 4;

let app: TestApp;
let ada: Operator;
let receiver: Receiver;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({ WS_ANONYMOUS_TIMEOUT: `${ANONYMOUS_TIMEOUT_MS}ms`, WS_MAX_PER_ADDRESS: String(MAX_PER_ADDRESS) });
  ada = await createOperator(app, "Ada");
  await forwardTo(app, ada.deploymentId, receiver.url, { token: ada.token });
});
afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await app.close();
  await receiver.close();
});

interface RawSocket {
  socket: WebSocket;
  messages: { type: string; id?: string; payload?: unknown }[];
  /** The upgrade's HTTP status when the server refused it. */
  refused: Promise<number | undefined>;
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves with the first message (already received or to come) of this type and id. */
  message(type: string, id?: string): Promise<{ type: string; id?: string; payload?: unknown }>;
  send(message: object): void;
}

function openSocket(headers: Record<string, string> = {}): RawSocket {
  const socket = new WebSocket(`${app.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", { headers });
  sockets.push(socket);
  const messages: RawSocket["messages"] = [];
  const waiters: { type: string; id?: string; resolve(m: RawSocket["messages"][number]): void }[] = [];
  socket.on("message", (data) => {
    const message = JSON.parse(String(data));
    messages.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.type === message.type && (waiter.id === undefined || waiter.id === message.id)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  });
  const refused = new Promise<number | undefined>((resolve) => {
    socket.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode);
      response.destroy();
    });
    socket.once("open", () => resolve(undefined));
    socket.once("error", () => resolve(undefined));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
  return {
    socket,
    messages,
    refused,
    closed,
    message: (type, id) => {
      const found = messages.find((m) => m.type === type && (id === undefined || m.id === id));
      return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ type, id, resolve }));
    },
    send: (message) => socket.send(JSON.stringify(message)),
  };
}

/** Opens a socket and completes connection_init; resolves once acknowledged (or closed). */
async function connect(headers: Record<string, string> = {}, payload?: Record<string, string>) {
  const raw = openSocket(headers);
  if ((await raw.refused) !== undefined) return { ...raw, outcome: "refused" as const };
  raw.send({ type: "connection_init", ...(payload && { payload }) });
  const outcome = await Promise.race([raw.message("connection_ack").then(() => "ack" as const), raw.closed.then(() => "closed" as const)]);
  return { ...raw, outcome };
}

const SigningSecretQuery = (deploymentId: string) => `{ deployment(id: "${deploymentId}") { signingSecret } }`;

describe("sockets without credentials", () => {
  test("are closed (4401) once WS_ANONYMOUS_TIMEOUT passes with nothing subscribed; sockets with credentials stay", async () => {
    const anonymous = await connect();
    const withKey = await connect({}, { "x-api-key": ada.apiKey });
    expect([anonymous.outcome, withKey.outcome]).toEqual(["ack", "ack"]);

    const closed = await anonymous.closed;
    expect(closed.code).toBe(4401);
    expect(closed.reason).toMatch(/no credentials/i);

    // Opened at the same moment and idle just as long, the key's socket is still usable.
    expect(withKey.socket.readyState).toBe(WebSocket.OPEN);
    withKey.send({ id: "q", type: "subscribe", payload: { query: `{ deployment(id: "${ada.deploymentId}") { id } }` } });
    expect((await withKey.message("next", "q")).payload).toEqual({ data: { deployment: { id: ada.deploymentId } } });
    withKey.socket.close();
    await withKey.closed;
  });

  test(`one address holds at most WS_MAX_PER_ADDRESS (${MAX_PER_ADDRESS}) sockets; the next upgrade is refused with 429`, async () => {
    const open = [];
    for (let i = 0; i < MAX_PER_ADDRESS; i++) open.push(await connect({}, { "x-api-key": ada.apiKey }));
    expect(open.map((s) => s.outcome)).toEqual(Array(MAX_PER_ADDRESS).fill("ack"));

    const extra = openSocket();
    expect(await extra.refused).toBe(429);

    // A closed socket frees its place.
    open[0].socket.close();
    await open[0].closed;
    await until(async () => (await connect({}, { "x-api-key": ada.apiKey })).outcome === "ack", "a socket to be accepted again");
    for (const socket of sockets) socket.close();
    await Promise.all(open.map((s) => s.closed));
  });
});

describe("the session cookie over websockets", () => {
  const cookie = () => `sy_session=${ada.token}`;

  test("a page of another origin cannot use it: the socket is closed with 4403 and nothing runs", async () => {
    const foreign = await connect({ origin: "http://127.0.0.1:1", cookie: cookie() });
    expect(foreign.outcome).toBe("closed");
    const closed = await foreign.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/http:\/\/127\.0\.0\.1:1/);
  });

  test("the service's own origin uses it; other origins may still send credentials in connectionParams", async () => {
    const own = await connect({ origin: app.url, cookie: cookie() });
    expect(own.outcome).toBe("ack");
    own.send({ id: "s", type: "subscribe", payload: { query: SigningSecretQuery(ada.deploymentId) } });
    expect(((await own.message("next", "s")).payload as { data: { deployment: { signingSecret: string } } }).data.deployment.signingSecret).toMatch(/^whsec_/);
    own.socket.close();

    const withKey = await connect({ origin: "http://127.0.0.1:1", cookie: cookie() }, { "x-api-key": ada.apiKey });
    expect(withKey.outcome).toBe("ack");
    withKey.send({ id: "k", type: "subscribe", payload: { query: `{ deployment(id: "${ada.deploymentId}") { id } }` } });
    expect((await withKey.message("next", "k")).payload).toEqual({ data: { deployment: { id: ada.deploymentId } } });
    withKey.socket.close();

    const withToken = await connect({ origin: "http://127.0.0.1:1" }, { authorization: `Bearer ${ada.token}` });
    expect(withToken.outcome).toBe("ack");
    withToken.socket.close();
    await Promise.all([own.closed, withKey.closed, withToken.closed]);
  });
});

describe("limits over websockets", () => {
  test("a too deep, too aliased or too large operation gets an error message; the socket and its other subscriptions carry on", async () => {
    const client = wsClient(app.url, { connectionParams: { "x-api-key": ada.apiKey } });
    try {
      const events = subscribeWs(client, `subscription($d: ID!) { forwardedEvents(deploymentId: $d) { id } }`, { d: ada.deploymentId });
      await until(() => app.app.bus.activeSubscriptions() === 1, "the subscription to start");

      const deep = `{ ${"organizations { deployments { organization { ".repeat(5)} id ${"} } } ".repeat(5)} }`;
      const aliases = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: viewer { id }`).join(" ")} }`;
      const large = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: deployment(id: "${ada.deploymentId}") { dataItems(limit: 100) { nodes { id name description } } }`).join(" ")} }`;
      for (const [query, pattern] of [
        [deep, /depth/i],
        [aliases, /alias/i],
        [large, /too large/i],
      ] as const) {
        const refused = subscribeWs(client, query, {});
        const ending = await refused.ended;
        expect(ending.kind).toBe("error");
        const errors = (ending as { errors: { message: string; extensions?: { code?: string } }[] }).errors;
        expect(errors[0].message).toMatch(pattern);
        expect(errors[0].extensions?.code).toBe("BAD_USER_INPUT");
      }

      // The first subscription is still live on the same socket.
      const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
      expect((await events.next()).data?.forwardedEvents).toEqual({ id: fired.id });
      events.stop();
    } finally {
      await client.dispose();
    }
  });
});
