/**
 * Every API-key connector whose triggers come from a webhook Switchyard registers per connection
 * with the account's key and its own generated secret (Cal.com, Tally, CircleCI, WooCommerce — one
 * webhook per topic there), end to end
 * against a fake of the provider's webhook API built from the connector's declaration: the end
 * user connects through the hosted form; listing the triggers registers one webhook at the
 * subscription's own URL with the listed events and a secret; deliveries signed with that secret,
 * the provider's documented way, become the listed triggers' events for that account; a wrong
 * secret, an altered body, a missing signature or another subscription's URL is a 401 storing
 * nothing; a disconnect deletes the webhook at the provider.
 */
import { createHmac, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { valueAt } from "../../src/connectors/json.ts";
import { allConnectors } from "../../src/connectors/registry.ts";
import type { ConnectorDefinition } from "../../src/connectors/types.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { setAt } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, connectWithCredentials } from "./helpers.ts";

const catalog = allConnectors();

const mac = (secret: string, body: string, encoding: "hex" | "base64") => createHmac("sha256", secret).update(body).digest(encoding);

/** Where each provider's documented create call carries the URL, the events and the secret, and how it signs a delivery with that secret. */
const PROVIDERS: Record<string, { url: string; events: string; secret: string; sign: (body: string, secret: string) => Record<string, string> }> = {
  // https://cal.com/docs/api-reference/v2/webhooks/create-a-webhook; X-Cal-Signature-256: hex HMAC-SHA256 of the body.
  cal_com: { url: "subscriberUrl", events: "triggers", secret: "secret", sign: (body, secret) => ({ "x-cal-signature-256": mac(secret, body, "hex") }) },
  // https://developers.tally.so/api-reference/endpoint/webhooks/post; Tally-Signature: base64 HMAC-SHA256 of the body.
  tally: { url: "url", events: "eventTypes", secret: "signingSecret", sign: (body, secret) => ({ "tally-signature": mac(secret, body, "base64") }) },
  // https://circleci.com/docs/webhooks-reference/: circleci-signature: v1=<hex HMAC-SHA256 of the body>.
  circleci: {
    url: "url",
    events: "events",
    secret: "signing-secret",
    sign: (body, secret) => ({ "circleci-signature": `v1=${mac(secret, body, "hex")}`, "circleci-event-type": String(JSON.parse(body).type) }),
  },
  // https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks: one topic per webhook;
  // X-WC-Webhook-Signature: base64 HMAC-SHA256 of the body; the topic in X-WC-Webhook-Topic.
  woocommerce: {
    url: "delivery_url",
    events: "topic",
    secret: "secret",
    sign: (body, secret) => ({ "x-wc-webhook-signature": mac(secret, body, "base64") }),
  },
};

/** Headers a provider sends with every delivery of one webhook, whatever the body (WooCommerce names the hook's topic). */
const HOOK_HEADERS: Record<string, (hook: Registered) => Record<string, string>> = {
  woocommerce: (hook) => ({ "x-wc-webhook-topic": String(hook.body.topic), "x-wc-webhook-source": "https://shop.example.com/" }),
};
const eventsOf = (name: string, hook: Registered): string[] => [hook.body[PROVIDERS[name].events] as string | string[]].flat();

// Secrets Switchyard generates and sends in the create call; providers that answer their own
// (BambooHR's privateKey) have a test of their own (bamboohr.test.ts).
const keyed = catalog.filter(
  (def) => (def.authMode === "API_KEY" || def.authMode === "BASIC") && def.declaration.subscription?.webhook?.key === "subscription" && def.declaration.subscription.secret === "generated",
);

interface Registered {
  id: string;
  body: Record<string, unknown>;
  deleted: boolean;
}
const registered = new Map<string, Registered[]>();
const deletes = new Map<string, string[]>();
const fakes = new Map<string, FakeCredentialedProvider>();
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  for (const def of keyed) {
    const decl = def.declaration.subscription!;
    // Declared calls, not code hooks: the connectors this test covers say their create and delete as data.
    const create = decl.create!;
    const del = decl.delete!;
    const createPath = create.path;
    const [deletePath, deleteQuery = ""] = del.path.split("?");
    const deletePattern = new RegExp(`^${deletePath.replace("{providerId}", "([^/]+)")}$`);
    // A query the provider requires on the delete (WooCommerce's force=true: without it a webhook is not deleted).
    const required = [...new URLSearchParams(deleteQuery)];
    registered.set(def.name, []);
    deletes.set(def.name, []);
    // The account is the one its events name (Tally's form, CircleCI's project): the id the first sample routes to.
    const routed = def.declaration.webhook!.routing.map((path) => valueAt(def.triggers[0].samplePayload, path)).find((v) => v !== undefined);
    const fake = await startCredentialedProvider(def, {
      identityId: routed === undefined ? undefined : String(routed),
      routes: [
        ({ method, path, body }) => {
          if (method !== create.method || path !== createPath) return undefined;
          const id = randomUUID();
          registered.get(def.name)!.push({ id, body: body as Record<string, unknown>, deleted: false });
          const answer: Record<string, unknown> = {};
          setAt(answer, decl.answer.idPath!, id);
          return { status: 201, body: answer };
        },
        ({ method, path, url }) => {
          const match = method === del.method ? deletePattern.exec(path) : null;
          if (!match) return undefined;
          if (required.some(([key, value]) => url.searchParams.get(key) !== value)) return { status: 501, body: { code: "woocommerce_rest_trash_not_supported" } };
          deletes.get(def.name)!.push(match[1]);
          const hook = registered.get(def.name)!.find((h) => h.id === match[1]);
          if (!hook) return { status: 404, body: { error: "not found" } };
          hook.deleted = true;
          return { status: 200, body: {} };
        },
      ],
    });
    fakes.set(def.name, fake);
  }
  app = await startTestApp(Object.assign({}, ...[...fakes.values()].map((f) => f.env())));
  ada = await createOperator(app, "Ada");
  const triggers = keyed.flatMap((def) => def.triggers.map((t) => ({ connector: def.name, trigger: t.name })));
  await listTriggers(app, ada, triggers);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([...fakes.values()].map((f) => f.close()));
});

describe.each(keyed.map((def) => [def.name, def] as [string, ConnectorDefinition]))("%s", (name, def) => {
  const provider = PROVIDERS[name];
  let accountId: string;
  const events = () => storedEvents(app, ada, name);
  const deliver = (hook: Registered, body: string, headers: Record<string, string>, url = String(hook.body[provider.url])) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...HOOK_HEADERS[name]?.(hook), ...headers }, body });
  /** The webhook that carries a trigger's provider event. */
  const hookFor = (providerEvent: string) => registered.get(name)!.find((h) => eventsOf(name, h).includes(providerEvent))!;

  test("the provider is known to this test (where its create call carries the URL and secret, how it signs)", () => {
    expect(provider).toBeDefined();
  });

  test("a freshly connected account gets one webhook per declared resource at its subscription's own URL, with the listed events and a secret of its own", async () => {
    accountId = (await connectWithCredentials(app, ada, def, "alice", fakes.get(def.name)!.fields)).id;
    await app.app.subscriptions.runOnce(true);
    const hooks = registered.get(name)!;
    expect(hooks).toHaveLength(def.declaration.subscription!.resources.length);
    for (const hook of hooks) {
      expect(String(hook.body[provider.url])).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/${name}\\?subscription=psub_`));
      expect(String(hook.body[provider.secret])).toMatch(/^.{24,}$/);
    }
    expect(new Set(hooks.map((h) => String(h.body[provider.secret]))).size).toBe(hooks.length);
    const wanted = def.declaration.subscription!.resources.flatMap((r) => Object.values(r.triggers).flat());
    expect(hooks.flatMap((h) => eventsOf(name, h)).sort()).toEqual([...wanted].sort());
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => s.providerId).sort()).toEqual(hooks.map((h) => h.id).sort());
    expect(subs.every((s) => s.status === "ACTIVE" && s.lastError === null)).toBe(true);
  });

  test("every trigger's sample, signed with that secret, is stored once for the account; forged deliveries are refused", async () => {
    for (const trigger of def.triggers) {
      const hook = hookFor(trigger.providerEvent);
      const secret = String(hook.body[provider.secret]);
      const body = JSON.stringify(trigger.samplePayload);
      const response = await deliver(hook, body, provider.sign(body, secret));
      expect(response.status, trigger.name).toBe(200);
      expect(await response.json(), trigger.name).toMatchObject({ recorded: 1 });
    }
    const stored = await events();
    expect(stored.map((e) => e.trigger).sort()).toEqual(def.triggers.map((t) => t.name).sort());
    expect(stored.every((e) => e.account === "alice")).toBe(true);
    expect(stored.find((e) => e.trigger === def.triggers[0].name)!.payload).toEqual(def.triggers[0].samplePayload);

    const hook = hookFor(def.triggers[0].providerEvent);
    const secret = String(hook.body[provider.secret]);
    const body = JSON.stringify({ ...def.triggers[0].samplePayload, forged: true });
    const signed = provider.sign(body, secret);
    const forged: Array<[string, Record<string, string>, string, string?]> = [
      ["wrong secret", provider.sign(body, "not-the-subscription-secret-0000"), body],
      ["altered body", signed, body.replace(/}$/, ',"x":1}')],
      ["missing signature", {}, body],
      ["another subscription's URL", signed, body, String(hook.body[provider.url]).replace(/subscription=[^&]+/, "subscription=psub_unknown")],
    ];
    for (const [what, headers, payload, url] of forged) {
      const response = await deliver(hook, payload, headers, url);
      expect(response.status, what).toBe(401);
      expect((await response.json()).code, what).toBe("invalid_signature");
    }
    expect(await events()).toHaveLength(def.triggers.length);
  });

  test("a disconnect deletes the webhooks at the provider", async () => {
    const hooks = registered.get(name)!;
    await disconnect(app, ada, accountId);
    expect([...deletes.get(name)!].sort()).toEqual(hooks.map((h) => h.id).sort());
    expect(hooks.every((h) => h.deleted)).toBe(true);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
