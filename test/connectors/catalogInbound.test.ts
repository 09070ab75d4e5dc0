/**
 * Every catalog connector with inbound triggers, end to end: connected through the hosted flow
 * against a fake driven by its declaration, then sent its own sample events signed the provider's
 * way — with the provider's own npm code where it publishes one (Stripe's
 * `webhooks.generateTestHeaderString`; Linear's `LinearWebhookClient` checks our Linear signing),
 * otherwise the algorithm exactly as the provider documents it. A signed event is stored and
 * forwarded with the provider's payload unchanged as `data`; a wrong secret, an altered body, a
 * stale timestamp or a missing signature is a 401 that stores nothing; handshakes are answered.
 */
import { createHmac, randomUUID } from "node:crypto";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { valuesAt } from "../../src/connectors/json.ts";
import { connectorEnvPrefix, findConnector } from "../../src/connectors/registry.ts";
import type { ConnectorDefinition } from "../../src/connectors/types.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const hmac = (algorithm: "sha256" | "sha1", secret: string, content: string, encoding: "hex" | "base64" = "hex") =>
  createHmac(algorithm, secret).update(content).digest(encoding);

interface SignContext {
  /** The URL the provider calls (Square signs it). */
  url: string;
  /** Unix seconds. */
  now: number;
}

interface InboundCase {
  connector: string;
  /** Adjusts a sample before sending: a fresh body timestamp (Linear), the passcode (Figma). */
  prepare?: (sample: Record<string, unknown>, secret: string, ctx: SignContext) => Record<string, unknown>;
  sign: (body: string, secret: string, ctx: SignContext) => Record<string, string>;
  /** Removing these leaves the request unsigned (for body tokens: the body path, see prepare). */
  signatureHeaders: string[];
  /** Token schemes do not cover the body: an altered body is still the provider's. */
  bodySigned: boolean;
  /** Seconds past the scheme's window, for timestamped schemes. */
  staleBy?: number;
  /** The secret in the provider's own form, when it has one (Pipedrive: base64 of user:password). */
  webhookSecret?: string;
  /** What of the body is the provider's credential, not data: removed before storing and forwarding (Figma's passcode). */
  secretInBody?: string;
}

const stripeClient = new Stripe("sk_test_not_used");

const cases: InboundCase[] = [
  {
    connector: "stripe",
    sign: (body, secret, { now }) => ({ "stripe-signature": stripeClient.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now }) }),
    signatureHeaders: ["stripe-signature"],
    bodySigned: true,
    staleBy: 301,
  },
  {
    connector: "calendly",
    // https://developer.calendly.com/api-docs/ZG9jOjM2MzE2MDM4-webhook-signatures
    sign: (body, secret, { now }) => ({ "calendly-webhook-signature": `t=${now},v1=${hmac("sha256", secret, `${now}.${body}`)}` }),
    signatureHeaders: ["calendly-webhook-signature"],
    bodySigned: true,
    staleBy: 181,
  },
  {
    connector: "gitlab",
    sign: (body, secret) => {
      const kind = JSON.parse(body).object_kind as string;
      const hook = { push: "Push Hook", tag_push: "Tag Push Hook", issue: "Issue Hook", merge_request: "Merge Request Hook", pipeline: "Pipeline Hook" }[kind] ?? "System Hook";
      return { "x-gitlab-token": secret, "x-gitlab-event": hook, "x-gitlab-event-uuid": randomUUID() };
    },
    signatureHeaders: ["x-gitlab-token"],
    bodySigned: false,
  },
  {
    connector: "bitbucket",
    sign: (body, secret) => ({ "x-hub-signature": `sha256=${hmac("sha256", secret, body)}`, "x-event-key": eventKeyOf("bitbucket", body), "x-request-uuid": randomUUID() }),
    signatureHeaders: ["x-hub-signature"],
    bodySigned: true,
  },
  {
    connector: "intercom",
    sign: (body, secret) => ({ "x-hub-signature": `sha1=${hmac("sha1", secret, body)}` }),
    signatureHeaders: ["x-hub-signature"],
    bodySigned: true,
  },
  {
    connector: "zoom",
    sign: (body, secret, { now }) => ({ "x-zm-request-timestamp": String(now), "x-zm-signature": `v0=${hmac("sha256", secret, `v0:${now}:${body}`)}` }),
    signatureHeaders: ["x-zm-signature"],
    bodySigned: true,
    staleBy: 301,
  },
  {
    connector: "square",
    // https://developer.squareup.com/docs/webhooks/step3validate: the notification URL, then the body.
    sign: (body, secret, { url }) => ({ "x-square-hmacsha256-signature": hmac("sha256", secret, `${url}${body}`, "base64") }),
    signatureHeaders: ["x-square-hmacsha256-signature"],
    bodySigned: true,
  },
  {
    connector: "clickup",
    sign: (body, secret) => ({ "x-signature": hmac("sha256", secret, body) }),
    signatureHeaders: ["x-signature"],
    bodySigned: true,
  },
  {
    connector: "linear",
    prepare: (sample, _secret, { now }) => ({ ...sample, webhookTimestamp: now * 1000 }),
    sign: (body, secret) => {
      const signature = hmac("sha256", secret, body);
      // Linear's own verifier must accept what we send; it also holds webhookTimestamp to a minute,
      // so the deliberately stale request is not shown to it.
      const fresh = Math.abs(Date.now() - Number(JSON.parse(body).webhookTimestamp)) <= 60_000;
      if (fresh && !new LinearWebhookClient(secret).verify(Buffer.from(body), signature)) throw new Error("Linear's SDK refused our signature");
      return { "linear-signature": signature, "linear-delivery": randomUUID(), "linear-event": String(JSON.parse(body).type) };
    },
    signatureHeaders: ["linear-signature"],
    bodySigned: true,
    staleBy: 61,
  },
  {
    connector: "box",
    // https://developer.box.com/guides/webhooks/v2/signatures-v2/: the body bytes, then the timestamp's.
    sign: (body, secret, { now }) => {
      const timestamp = new Date(now * 1000).toISOString().replace(/\.\d{3}Z$/, "-00:00");
      return {
        "box-delivery-id": randomUUID(),
        "box-delivery-timestamp": timestamp,
        "box-signature-primary": hmac("sha256", secret, body + timestamp, "base64"),
        "box-signature-secondary": hmac("sha256", "the-other-key-not-configured", body + timestamp, "base64"),
        "box-signature-version": "1",
        "box-signature-algorithm": "HmacSHA256",
      };
    },
    signatureHeaders: ["box-signature-primary", "box-signature-secondary"],
    bodySigned: true,
    staleBy: 601,
  },
  {
    connector: "figma",
    prepare: (sample, secret) => ({ ...sample, passcode: secret }),
    secretInBody: "passcode",
    sign: () => ({}),
    signatureHeaders: [],
    bodySigned: false,
  },
  {
    connector: "notion",
    sign: (body, secret) => ({ "x-notion-signature": `sha256=${hmac("sha256", secret, body)}` }),
    signatureHeaders: ["x-notion-signature"],
    bodySigned: true,
  },
  {
    connector: "todoist",
    sign: (body, secret) => ({ "x-todoist-hmac-sha256": hmac("sha256", secret, body, "base64"), "x-todoist-delivery-id": randomUUID() }),
    signatureHeaders: ["x-todoist-hmac-sha256"],
    bodySigned: true,
  },
  {
    connector: "docusign",
    // https://developers.docusign.com/platform/webhooks/connect/validate/
    sign: (body, secret) => ({ "x-docusign-signature-1": hmac("sha256", secret, body, "base64"), "x-authorization-digest": "HMACSHA256" }),
    signatureHeaders: ["x-docusign-signature-1"],
    bodySigned: true,
  },
  {
    connector: "pipedrive",
    // Webhooks v2 send the http_auth_user/http_auth_password given at creation as HTTP Basic.
    sign: (_body, secret) => ({ authorization: `Basic ${secret}` }),
    signatureHeaders: ["authorization"],
    bodySigned: false,
    webhookSecret: Buffer.from("switchyard:hook-password-123").toString("base64"),
  },
];

function eventKeyOf(connector: string, body: string): string {
  const def = findConnector(connector)!;
  const parsed = JSON.parse(body);
  const trigger = def.declaration.triggers.find((t) => JSON.stringify(t.samplePayload) === JSON.stringify(parsed)) ?? def.declaration.triggers[0];
  return trigger.providerEvent;
}

/** The id the sample routes to: the first routing path that has a value. */
function routedId(def: ConnectorDefinition, sample: Record<string, unknown>): string {
  for (const path of def.declaration.webhook!.routing) {
    const [value] = valuesAt(sample, path);
    if (value !== undefined) return String(value);
  }
  throw new Error(`${def.name}'s first sample has no routing value`);
}

let app: TestApp;
let receiver: Receiver;
let ada: Operator;
const fakes = new Map<string, FakeDeclaredProvider>();
const secrets = new Map<string, string>();

beforeAll(async () => {
  receiver = await startReceiver();
  // Independent per connector (one fake each): started concurrently.
  await Promise.all(
    cases.map(async (c) => {
      const def = findConnector(c.connector);
      if (!def) throw new Error(`${c.connector} is not in the catalog`);
      const fake = await startDeclaredProvider(def, {
        autoApprove: true,
        // Notion's identity is the workspace its token answer names.
        tokenExtras:
          c.connector === "notion"
            ? (who) => ({ workspace_id: who.id, workspace_name: who.displayName, bot_id: "bot-1", owner: { type: "user", user: { id: "user-1", name: who.displayName } } })
            : undefined,
      });
      // The account is whoever the first sample event routes to.
      fake.setIdentity({ id: routedId(def, def.declaration.triggers[0].samplePayload) });
      fakes.set(c.connector, fake);
      secrets.set(c.connector, c.webhookSecret ?? `${c.connector}-webhook-secret-0123456789`);
    }),
  );
  const env = Object.assign(
    { DELIVERY_RETRY_SCHEDULE: "100ms,200ms" },
    ...cases.map((c) => ({ ...fakes.get(c.connector)!.env(), [`${connectorEnvPrefix({ name: c.connector })}WEBHOOK_SECRET`]: secrets.get(c.connector)! })),
  );
  app = await startTestApp(env, { worker: true });
  ada = await createOperator(app, "Ada");
  // One flow at a time: sixteen concurrent browser walks on a loaded machine only add resets.
  for (const c of cases) await connectAccount(app, ada, { connector: c.connector, account: "alice", provider: fakes.get(c.connector)! });
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: `${receiver.url}/hooks`,
          triggers: cases.map((c) => ({ connector: c.connector, trigger: findConnector(c.connector)!.triggers[0].name })),
        },
      },
      { token: ada.token },
    ),
  );
});

afterAll(async () => {
  await app?.close();
  await Promise.all([receiver?.close(), ...[...fakes.values()].map((f) => f.close())]);
});

const webhookUrl = (connector: string) => `${app.url}/webhooks/${ada.deploymentId}/${connector}`;
const post = (connector: string, headers: Record<string, string>, body: string) =>
  fetch(webhookUrl(connector), { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function storedEvents() {
  return ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;
}

/** A copy of `value` with `path` (a dot path) set; unchanged without a path. */
function withValueAt(value: Record<string, unknown>, path: string | undefined, replacement: unknown): Record<string, unknown> {
  if (!path) return value;
  const [key, ...rest] = path.split(".");
  const child = value[key] as Record<string, unknown> | undefined;
  return { ...value, [key]: rest.length ? withValueAt({ ...child }, rest.join("."), replacement) : replacement };
}

/** The provider's payload as forwarded: unchanged, but for a credential it carries in the body. */
function asForwarded(c: InboundCase, body: string): Record<string, unknown> {
  const { [c.secretInBody ?? ""]: _secret, ...data } = JSON.parse(body);
  return c.secretInBody ? data : JSON.parse(body);
}

function signed(c: InboundCase, sample: Record<string, unknown>, secret: string, now = nowSeconds()) {
  const ctx = { url: webhookUrl(c.connector), now };
  const body = JSON.stringify(c.prepare ? c.prepare(sample, secret, ctx) : sample);
  return { body, headers: c.sign(body, secret, ctx) };
}

describe.each(cases)("$connector", (c) => {
  const def = () => findConnector(c.connector)!;
  const secret = () => secrets.get(c.connector)!;

  test("its signed sample event is forwarded once, the provider's payload unchanged as data", async () => {
    const trigger = def().triggers[0];
    const request = signed(c, trigger.samplePayload, secret());
    const response = await post(c.connector, request.headers, request.body);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1, duplicates: 0, unrouted: 0 });

    // The provider's retry of the same delivery is not a second event.
    const again = await post(c.connector, request.headers, request.body);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ recorded: 0, forwarded: 0 });

    const type = `${c.connector}.${trigger.name}`;
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).type === type));
    const forwarded = receiver.requests.filter((r) => JSON.parse(r.body).type === type);
    expect(forwarded).toHaveLength(1);
    const body = JSON.parse(forwarded[0].body);
    expect(body).toMatchObject({ connector: c.connector, trigger: trigger.name, account: "alice", deploymentId: ada.deploymentId });
    expect(body.data).toEqual(asForwarded(c, request.body));
  });

  test("a wrong secret, an altered body, a missing signature or a stale timestamp is a 401 that stores nothing", async () => {
    const sample = def().triggers[0].samplePayload;
    const before = (await storedEvents()).length;
    const good = signed(c, sample, secret());
    const bad: Array<[string, { headers: Record<string, string>; body: string }]> = [
      ["wrong secret", signed(c, sample, "not-the-secret-at-all")],
      ["missing signature", c.signatureHeaders.length ? { headers: Object.fromEntries(Object.entries(good.headers).filter(([k]) => !c.signatureHeaders.includes(k))), body: good.body } : { headers: good.headers, body: JSON.stringify({ ...JSON.parse(good.body), passcode: undefined }) }],
    ];
    if (c.bodySigned) bad.push(["altered body", { headers: good.headers, body: good.body.replace(/}$/, ',"tampered":true}') }]);
    if (c.staleBy) bad.push(["stale timestamp", signed(c, sample, secret(), nowSeconds() - c.staleBy - 5)]);
    for (const [what, request] of bad) {
      const response = await post(c.connector, request.headers, request.body);
      expect(response.status, what).toBe(401);
      expect(await response.json(), what).toMatchObject({ status: 401, code: "invalid_signature" });
    }
    expect((await storedEvents()).length).toBe(before);
  });

  test.runIf(findConnector(c.connector)!.inbound.replayWindowSeconds !== undefined)(
    "its signature covers no timestamp: the same body re-sent under a new delivery id is answered 2xx and is not a second event",
    async () => {
      // A new event: a new delivery id where the body carries it (Notion `id`), and a marker.
      const idPaths = def().declaration.webhook!.deliveryId.paths;
      const idPath = idPaths?.length === 1 ? idPaths[0] : undefined;
      const sample = withValueAt({ ...def().triggers[0].samplePayload, replay_probe: c.connector }, idPath, `replay-probe-${c.connector}`);
      const first = signed(c, sample, secret());
      expect(await (await post(c.connector, first.headers, first.body)).json()).toMatchObject({ recorded: 1 });
      // Signed again: a new delivery id where the provider sends one (x-request-uuid, x-todoist-delivery-id, …).
      const again = signed(c, sample, secret());
      expect(again.body).toBe(first.body);
      const answer = await post(c.connector, again.headers, again.body);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ recorded: 0, duplicates: 1 });
      expect((await storedEvents()).filter((e) => (e.payload as { replay_probe?: string }).replay_probe === c.connector)).toHaveLength(1);
    },
  );

  test("every trigger's sample parses to that trigger and routes to the connected account", () => {
    const connector = def();
    const accountId = routedId(connector, connector.triggers[0].samplePayload);
    for (const trigger of connector.triggers) {
      const request = signed(c, trigger.samplePayload, secret());
      const req = { headers: request.headers, rawBody: Buffer.from(request.body), url: webhookUrl(c.connector) };
      expect(connector.inbound.verify(req, secret(), new Date()), trigger.name).toEqual({ ok: true });
      const result = connector.inbound.parse(req);
      expect(result.kind).toBe("events");
      const [event] = result.kind === "events" ? result.events : [];
      expect(event?.trigger, trigger.name).toBe(trigger.name);
      expect(event.externalIds, trigger.name).toContain(accountId);
      expect(event.data).toEqual(asForwarded(c, request.body));
    }
  });
});

describe("a secret carried in the body", () => {
  test("Figma's passcode is neither stored in the event log nor forwarded", async () => {
    const c = cases.find((x) => x.connector === "figma")!;
    const secret = secrets.get("figma")!;
    const trigger = findConnector("figma")!.triggers[1];
    const request = signed(c, { ...trigger.samplePayload, webhook_id: "passcode-story" }, secret);
    expect(request.body).toContain(secret);
    const response = await post("figma", request.headers, request.body);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 0 });
    // The event log (what every member reads) holds the payload without it.
    const stored = (await storedEvents()).find((e) => e.type === `figma.${trigger.name}`)!;
    expect(stored.payload).toMatchObject({ webhook_id: "passcode-story", file_key: trigger.samplePayload.file_key });
    expect(JSON.stringify(stored.payload)).not.toContain(secret);
    expect(stored.payload).not.toHaveProperty("passcode");
    // And nothing the receiver was sent carries it.
    expect(receiver.requests.some((r) => r.body.includes(secret))).toBe(false);
  });
});

describe("handshakes", () => {
  // The configured-secret case; test/connectors/notionVerification.test.ts covers the rest.
  test("Notion's unsigned verification request is answered 200 and never replaces the configured webhook secret", async () => {
    const before = (await storedEvents()).length;
    const response = await post("notion", {}, JSON.stringify({ verification_token: "secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl" }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ verification: "received" });
    expect((await storedEvents()).length).toBe(before);
    const body = JSON.stringify({ ...findConnector("notion")!.triggers[1].samplePayload });
    const forged = await post("notion", { "x-notion-signature": `sha256=${hmac("sha256", "secret_tMrlL1qK5vuQAh1b6cZGhFChZTSYJlce98V0pYn7yBl", body)}` }, body);
    expect(forged.status).toBe(401);
    const genuine = await post("notion", { "x-notion-signature": `sha256=${hmac("sha256", secrets.get("notion")!, body)}` }, body);
    expect(genuine.status).toBe(200);
  });

  test("Zoom's endpoint.url_validation is answered with the plain token and its HMAC", async () => {
    const body = JSON.stringify({ payload: { plainToken: "qgg8vlvZRS6UYooatFL8Aw" }, event_ts: Date.now(), event: "endpoint.url_validation" });
    const now = nowSeconds();
    const secret = secrets.get("zoom")!;
    const response = await post("zoom", { "x-zm-request-timestamp": String(now), "x-zm-signature": `v0=${hmac("sha256", secret, `v0:${now}:${body}`)}` }, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ plainToken: "qgg8vlvZRS6UYooatFL8Aw", encryptedToken: hmac("sha256", secret, "qgg8vlvZRS6UYooatFL8Aw") });
  });

  test("an unsigned Zoom url_validation is refused, so nobody can have the deployment's secret sign a forged event", async () => {
    const secret = secrets.get("zoom")!;
    const before = (await storedEvents()).length;
    // The attack: ask for the "encryptedToken" of `v0:<ts>:<forged body>`, then send that body with it.
    const now = nowSeconds();
    const forged = JSON.stringify({ ...findConnector("zoom")!.triggers[0].samplePayload, event_ts: Date.now() });
    const ask = JSON.stringify({ event: "endpoint.url_validation", payload: { plainToken: `v0:${now}:${forged}` }, event_ts: Date.now() });
    const asked = await post("zoom", {}, ask);
    expect(asked.status).toBe(401);
    const answer = await asked.text();
    expect(answer).not.toContain(hmac("sha256", secret, `v0:${now}:${forged}`));
    expect(JSON.parse(answer)).toMatchObject({ code: "invalid_signature" });

    // Even a short, well-formed plain token is not answered without Zoom's signature.
    const plain = JSON.stringify({ event: "endpoint.url_validation", payload: { plainToken: "qgg8vlvZRS6UYooatFL8Aw" }, event_ts: Date.now() });
    expect((await post("zoom", {}, plain)).status).toBe(401);
    expect((await post("zoom", { "x-zm-request-timestamp": String(now), "x-zm-signature": `v0=${hmac("sha256", "not-the-secret", `v0:${now}:${plain}`)}` }, plain)).status).toBe(401);
    expect((await storedEvents()).length).toBe(before);
  });

  test("a signed Zoom url_validation whose plainToken is not a short [A-Za-z0-9_-] token is a 400 invalid_parameter", async () => {
    const secret = secrets.get("zoom")!;
    for (const plainToken of ["has spaces", "x".repeat(65), "", "a.b", 42]) {
      const body = JSON.stringify({ event: "endpoint.url_validation", payload: { plainToken }, event_ts: Date.now() });
      const now = nowSeconds();
      const response = await post("zoom", { "x-zm-request-timestamp": String(now), "x-zm-signature": `v0=${hmac("sha256", secret, `v0:${now}:${body}`)}` }, body);
      expect(response.status, String(plainToken)).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ status: 400, code: "invalid_parameter" });
    }
  });
});
