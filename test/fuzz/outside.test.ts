/**
 * Text Switchyard did not write and cannot refuse at the door: what an operator's server answers a
 * delivery, what a provider says about the account being connected, what a provider's API returns.
 * Each may carry NUL and lone surrogates (as JSON escapes, or as bytes UTF-8 cannot hold), which
 * PostgreSQL's text and jsonb refuse. Fed through the fake providers and a raw receiver, with a
 * fixed seed: deliveries are still recorded (none left PENDING without an attempt), connect flows
 * end on the done page or a clear error page, polled mail is still read, and nothing answers 5xx.
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectAccount, getAuthUrl, walkConnectFlow } from "../helpers/connectFlow.ts";
import { type FakeGitHub, type FakeGoogle, type FakeJira, type FakeSlack, startFakeGitHub, startFakeGoogle, startFakeJira, startFakeSlack } from "../helpers/fakeProviders/index.ts";
import { DeploymentDeliveries, DeploymentEvents, SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";
import { sampleOf, UNSTORABLE_STRINGS, unstorableString } from "./values.ts";

const SEED = Number(process.env.FUZZ_SEED) || 20261125;
const DELIVERIES = 60;

/** Bytes UTF-8 cannot hold: a surrogate's CESU-8 bytes, an overlong NUL, stray bytes, NUL itself. */
const BAD_BYTES = [Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xed, 0xbf, 0xbf]), Buffer.from([0xc0, 0x80]), Buffer.from([0xff, 0xfe]), Buffer.from([0x00])];

let app: TestApp;
let github: FakeGitHub;
let slack: FakeSlack;
let jira: FakeJira;
let google: FakeGoogle;
let raw: RawReceiver;
let ada: Operator;

/**
 * The operator's server, written at the byte level: node:http refuses to send NUL or non-Latin-1
 * text in a header, a misbehaving server does not. Each request is read whole, then answered with
 * the next scripted bytes and the connection closed.
 */
interface RawReceiver {
  url: string;
  answers: Buffer[];
  received: number;
  close(): Promise<void>;
}

async function startRawReceiver(): Promise<RawReceiver> {
  const sockets = new Set<Socket>();
  const receiver: RawReceiver = { url: "", answers: [], received: 0, close: async () => {} };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(buffered.subarray(0, end).toString("latin1"))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const answer = receiver.answers[receiver.received++ % Math.max(1, receiver.answers.length)] ?? Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
      buffered = Buffer.alloc(0);
      socket.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return receiver;
}

/** An HTTP answer as bytes: status, headers and body exactly as given (the Content-Length is counted). */
function answerBytes(status: number, headers: Buffer[], body: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 ${status} Whatever\r\nconnection: close\r\ncontent-length: ${body.length}\r\n`),
    ...headers.flatMap((h) => [h, Buffer.from("\r\n")]),
    Buffer.from("\r\n"),
    body,
  ]);
}

beforeAll(async () => {
  [github, slack, jira, google, raw] = await Promise.all([startFakeGitHub(), startFakeSlack(), startFakeJira(), startFakeGoogle(), startRawReceiver()]);
  // No Gmail push secret: Switchyard polls the mailbox, and reads what the API answers.
  const { CONNECTOR_GMAIL_WEBHOOK_SECRET: _push, ...gmailEnv } = google.env();
  app = await startTestApp({ ...github.env(), ...slack.env(), ...jira.env(), ...gmailEnv, POLL_INTERVAL: "200ms" }, { worker: true, poller: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "gmail", account: "mailbox", provider: google });
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: `${raw.url}/hook`,
          triggers: [
            { connector: "github", trigger: "issue_opened" },
            { connector: "gmail", trigger: "email_received" },
          ],
        },
      },
      { token: ada.token },
    ),
  );
}, scaled(120_000));

afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), slack?.close(), jira?.close(), google?.close(), raw?.close()]);
});

/** Waits until `check` holds (polling the real interface), or fails saying what was last seen. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = performance.now() + scaled(30_000);
  let value = await read();
  while (!check(value)) {
    if (performance.now() > deadline) throw new Error(`${what}; last seen: ${JSON.stringify(value).slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

async function deliveries() {
  const result = await app.gql(DeploymentDeliveries, { id: ada.deploymentId, limit: 100 }, { token: ada.token });
  expect(result.errors, "listing deliveries whose attempts hold what the receiver answered").toBeUndefined();
  return result.data!.deployment!.deliveries;
}

test(`a receiver answering NUL and lone surrogates in its status, headers and body: every delivery is still recorded (seed ${SEED})`, async () => {
  const answer = fc.record({
    status: fc.constantFrom(200, 201, 204, 302, 400, 410, 429, 500, 503),
    headers: fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...BAD_BYTES)).map(([bad]) => Buffer.concat([Buffer.from("x-echo: a"), bad, Buffer.from("b")])),
        fc.tuple(fc.constantFrom(...BAD_BYTES)).map(([bad]) => Buffer.concat([Buffer.from("x-"), bad, Buffer.from(": 1")])),
        fc.constantFrom(...BAD_BYTES).map((bad) => Buffer.concat([Buffer.from("content-type: application/json; charset="), bad])),
        fc.constant(Buffer.from("content-type: application/json")),
        fc.constant(Buffer.from("retry-after: \u0000", "latin1")),
      ),
      { maxLength: 2 },
    ),
    body: fc.oneof(
      unstorableString.map((s) => Buffer.from(JSON.stringify({ echo: s, [s]: 1 }))),
      fc.tuple(fc.string({ maxLength: 20 }), fc.constantFrom(...BAD_BYTES)).map(([text, bad]) => Buffer.concat([Buffer.from(text), bad, Buffer.from(text)])),
      fc.constant(Buffer.alloc(0)),
    ),
  });
  raw.answers = sampleOf(answer, DELIVERIES, SEED).map((a) => answerBytes(a.status, a.headers, a.body));
  for (let i = 0; i < DELIVERIES; i++) {
    ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: ada.token }));
  }
  // Each delivery has been attempted: delivered, failed, or waiting for its retry with the attempt on record.
  const seen = await eventually(deliveries, (list) => list.length >= DELIVERIES && list.every((d) => d.attempts > 0), "deliveries left PENDING with no attempt recorded");
  expect(raw.received).toBeGreaterThanOrEqual(DELIVERIES);
  const outcomes = seen.reduce<Record<string, number>>((tally, d) => ((tally[`${d.status} ${d.lastStatusCode ?? "no status"}`] = (tally[`${d.status} ${d.lastStatusCode ?? "no status"}`] ?? 0) + 1), tally), {});
  console.log(`receiver answers: ${JSON.stringify(outcomes)}`);
  for (const delivery of seen) for (const attempt of delivery.attemptLog) expect(attempt.responseBody ?? "").not.toMatch(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
}, scaled(120_000));

/** Every text field of each fake's identity, and the fake's connector. */
const IDENTITY_FIELDS = [
  { connector: "github", fields: ["login", "name", "email"] },
  { connector: "slack", fields: ["userId", "teamId", "teamName", "teamUrl", "userName"] },
  { connector: "jira", fields: ["accountId", "name", "email"] },
  { connector: "gmail", fields: ["email"] },
] as const;

test("provider identities carrying NUL and lone surrogates: the connect flow ends on the done page or a clear error page, never a 5xx", async () => {
  const fakes = { github, slack, jira, gmail: google } as Record<string, { setIdentity(patch: Record<string, unknown>): void; getIdentity(): unknown }>;
  const endings: Record<string, number> = {};
  let flow = 0;
  for (const { connector, fields } of IDENTITY_FIELDS) {
    const fake = fakes[connector];
    const original = fake.getIdentity() as Record<string, unknown>;
    for (const field of fields) {
      for (const value of UNSTORABLE_STRINGS.slice(0, 8)) {
        fake.setIdentity({ [field]: typeof original[field] === "string" && value.length < 3 ? `${original[field]}${value}` : value });
        const walk = await walkConnectFlow(await getAuthUrl(app, ada.apiKey, connector, `identity-${flow++}`));
        const statuses = walk.hops.map((h) => h.status);
        expect(statuses.filter((s) => s >= 500), `${connector} ${field}=${JSON.stringify(value)}: ${walk.final.body.slice(0, 300)}`).toEqual([]);
        expect(walk.final.status, `${connector} ${field}=${JSON.stringify(value)} ended at ${walk.final.url}`).toBeLessThan(500);
        expect(walk.final.contentType ?? "").toMatch(/text\/html/);
        endings[`${connector} ${walk.final.status}`] = (endings[`${connector} ${walk.final.status}`] ?? 0) + 1;
        fake.setIdentity(original);
      }
    }
  }
  console.log(`connect flows by identity: ${JSON.stringify(endings)}`);
  // The connected accounts are still listed, readably.
  const listed = await app.gql("query($d: ID!) { deployment(id: $d) { connectedAccounts { id account externalId } } }", { d: ada.deploymentId }, { token: ada.token });
  expect(listed.errors).toBeUndefined();
}, scaled(180_000));

test("mail whose headers and snippet carry NUL and lone surrogates is still polled, recorded and listed, and mail after it too", async () => {
  const values = sampleOf(unstorableString, 12, SEED + 1);
  for (const [i, value] of values.entries()) {
    const field = (["subject", "from", "to", "snippet"] as const)[i % 4];
    google.receiveEmail({ [field]: value, ...(field === "subject" ? {} : { subject: `odd ${field} ${i}` }) });
  }
  google.receiveEmail({ subject: "plain mail after the odd ones" });
  const events = async () => {
    const result = await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100, trigger: { connector: "gmail", trigger: "email_received" } }, { token: ada.token });
    expect(result.errors, "listing events read from the odd mail").toBeUndefined();
    return result.data!.deployment!.events;
  };
  const seen = await eventually(events, (list) => list.length >= values.length + 1, "polled mail not recorded");
  expect(JSON.stringify(seen.map((e) => e.payload))).toContain("plain mail after the odd ones");
  const health = await fetch(`${app.url}/healthz`);
  expect(health.status).toBe(200);
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  expect(metrics.split("\n").filter((row) => /^switchyard_http_requests_total\{.*status="5\d\d"/.test(row))).toEqual([]);
}, scaled(120_000));
