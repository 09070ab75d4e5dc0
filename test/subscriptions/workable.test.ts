/**
 * Workable's webhook subscriptions, end to end against a fake that follows its API
 * (https://workable.readme.io/reference/webhook-subscriptions,
 * https://workable.readme.io/reference/webhook-subscriptions-candidates-employees): the account's
 * API access token (bearer) makes one subscription per event, `POST /spi/v3/subscriptions`
 * `{target, event, args?}` (one event each; a target already registered is 409; `args`, when
 * present, needs `job_shortcode` and `stage_slug`); Workable POSTs the candidate to the target,
 * signed `X-Workable-Signature` = HMAC-SHA256 of the body keyed with the account token. A delivery
 * signed with another token, altered or unsigned is refused; a disconnect deletes the
 * subscriptions (`DELETE /spi/v3/subscriptions/{id}`).
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, connectWithCredentials, storedEvents, disconnect, listTriggers } from "./helpers.ts";

const def = findConnector("workable")!;
const EVENTS = ["candidate_created", "candidate_moved", "employee_created", "employee_updated", "employee_published", "onboarding_completed", "timeoff_updated"];

interface WorkableSubscription {
  id: string;
  target: string;
  event: string;
  args?: Record<string, string>;
}
const subscriptions = new Map<string, WorkableSubscription>();
const deletes: string[] = [];
let nextId = 71;

let fake: FakeCredentialedProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;

beforeAll(async () => {
  fake = await startCredentialedProvider(def, {
    // The account id Workable answers is not its subdomain: events are the connection's by their subscription, not by the id.
    identityId: "1007",
    routes: [
      ({ method, path, body }) => {
        if (method !== "POST" || path !== "/subscriptions") return undefined;
        const { target, event, args } = (body ?? {}) as { target?: string; event?: string; args?: Record<string, string> };
        if (!target?.startsWith("http") || !event || !EVENTS.includes(event)) return { status: 422, body: { error: "target and a known event are required" } };
        if (args && (args.job_shortcode === undefined || args.stage_slug === undefined)) return { status: 422, body: { error: "args needs job_shortcode and stage_slug" } };
        if ([...subscriptions.values()].some((s) => s.target === target)) return { status: 409, body: { error: "Conflict" } };
        const made = { id: String(nextId++), target, event, ...(args ? { args } : {}) };
        subscriptions.set(made.id, made);
        return { status: 201, body: { id: made.id } };
      },
      ({ method, path }) => {
        const match = method === "DELETE" ? /^\/subscriptions\/([^/]+)$/.exec(path) : null;
        if (!match) return undefined;
        deletes.push(match[1]);
        return subscriptions.delete(match[1]) ? { status: 204, body: "" } : { status: 404, body: { error: "Not found" } };
      },
    ],
  });
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  const triggers = def.triggers.map((t) => ({ connector: "workable", trigger: t.name }));
  await listTriggers(app, ada, triggers);
  accountId = (await connectWithCredentials(app, ada, def, "alice", fake.fields)).id;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const sign = (body: string, key: string) => createHmac("sha256", key).update(body).digest("hex");
const deliver = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(async (r) => ({ status: r.status, body: await r.json() }));
const workableEvents = () => storedEvents(app, ada, "workable");
const subscriptionFor = (event: string) => [...subscriptions.values()].find((s) => s.event === event)!;

describe("a connected Workable account with the candidate triggers listed", () => {
  test("gets one subscription per event, made with the account token, each at its own subscription URL", async () => {
    await app.app.subscriptions.runOnce(true);
    expect([...subscriptions.values()].map((s) => s.event).sort()).toEqual(["candidate_created", "candidate_moved"]);
    for (const s of subscriptions.values()) expect(s.target).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/workable\\?subscription=psub_`));
    const creates = fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/subscriptions"));
    expect(creates.map((r) => r.authorized)).toEqual([true, true]);
    const subs = await accountSubscriptions(app, ada, accountId);
    expect(subs.map((s) => s.status)).toEqual(["ACTIVE", "ACTIVE"]);
    expect(subs.map((s) => s.providerId).sort()).toEqual([...subscriptions.keys()].sort());
  });

  test("a candidate_created delivery signed with the account token is the account's event, the body unchanged as data", async () => {
    const created = subscriptionFor("candidate_created");
    const body = JSON.stringify(def.triggers.find((t) => t.name === "candidate_created")!.samplePayload);
    const answer = await deliver(created.target, body, { "x-workable-signature": sign(body, fake.credential) });
    expect(answer).toMatchObject({ status: 200, body: { recorded: 1 } });
    const [event] = await workableEvents();
    expect(event).toMatchObject({ trigger: "candidate_created", account: "alice", payload: JSON.parse(body) });
    // Workable replays a delivery it got no 200 for: the same body is the same event.
    expect((await deliver(created.target, body, { "x-workable-signature": sign(body, fake.credential) })).status).toBe(200);
    expect(await workableEvents()).toHaveLength(1);
  });

  test("another token, an altered body, no signature or an unknown subscription is refused and stores nothing", async () => {
    const created = subscriptionFor("candidate_created");
    const body = JSON.stringify({ ...(def.triggers[0].samplePayload as object), id: "forged-1" });
    const signed = sign(body, fake.credential);
    const forged: Array<[string, string, Record<string, string>, string]> = [
      ["another token", body, { "x-workable-signature": sign(body, "another-account-token-0000000000") }, created.target],
      ["altered body", body.replace("Lakita", "Mallory"), { "x-workable-signature": signed }, created.target],
      ["no signature", body, {}, created.target],
      ["unknown subscription", body, { "x-workable-signature": signed }, created.target.replace(/subscription=[^&]+/, "subscription=psub_unknown")],
    ];
    for (const [what, payload, headers, url] of forged) {
      const answer = await deliver(url, payload, headers);
      expect(answer.status, what).toBe(401);
      expect(answer.body.code, what).toBe("invalid_signature");
      expect(JSON.stringify(answer.body), what).not.toContain(fake.credential);
    }
    expect(await workableEvents()).toHaveLength(1);
  });

  test("disconnecting deletes both subscriptions at Workable", async () => {
    const ids = [...subscriptions.keys()].sort();
    await disconnect(app, ada, accountId);
    expect([...deletes].sort()).toEqual(ids);
    expect(subscriptions.size).toBe(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
