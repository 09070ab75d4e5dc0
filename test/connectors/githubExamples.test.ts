/**
 * Every delivery in GitHub's own example set (@octokit/webhooks-examples), signed with GitHub's own
 * signing code (@octokit/webhooks-methods), POSTed to one deployment over keep-alive: all are
 * accepted; those whose event/action is in the Forwarding Trigger List and whose sender or
 * repository owner is a connected account are forwarded exactly once with GitHub's payload intact;
 * the rest are accepted and not forwarded. The set holds a few byte-identical deliveries twice; sent
 * under a new X-GitHub-Delivery they are what a replay looks like, so the second is answered 2xx as
 * a duplicate and not forwarded again. The expected trigger of each delivery is worked out here
 * from GitHub's event list (emitterEventNames), not from the connector's own parser.
 */
import { randomUUID } from "node:crypto";
import { emitterEventNames } from "@octokit/webhooks";
import examples from "@octokit/webhooks-examples";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { scaled } from "../helpers/timing.ts";

/** The example set's two most frequent senders are our connected users. */
const CONNECTED_IDS = [21031067, 9919];
/** Left out of the Forwarding Trigger List: accepted and stored, never forwarded. */
const UNLISTED = new Set(["push", "star_created", "issue_closed"]);
const ORIGINAL: Record<string, string> = {
  "issues.opened": "issue_opened",
  "issues.closed": "issue_closed",
  "issue_comment.created": "issue_comment_created",
  "pull_request.opened": "pull_request_opened",
};

let app: TestApp;
let fake: FakeGitHub;
let receiver: Receiver;
let ada: Operator;

const names = new Set<string>(emitterEventNames as readonly string[]);
const hasActions = (event: string) => [...names].some((n) => n.startsWith(`${event}.`));

/** GitHub's name of a delivery → our trigger: `<event>_<action>`, the bare event, or nothing. */
function expectedTrigger(event: string, action: string | undefined): string | undefined {
  const pair = action ? `${event}.${action}` : undefined;
  if (pair && ORIGINAL[pair]) return ORIGINAL[pair];
  if (pair && names.has(pair) && event !== "repository_dispatch") return `${event}_${action}`;
  if (names.has(event) && (!hasActions(event) || event === "repository_dispatch")) return event;
  return undefined;
}

interface Delivery {
  event: string;
  payload: Record<string, any>;
  trigger: string | undefined;
  routed: boolean;
  forwarded: boolean;
  /** The exact body, as sent. */
  body: string;
}

const deliveries: Delivery[] = (examples as unknown as Array<{ name: string; examples: Array<Record<string, any>> }>).flatMap(({ name, examples: list }) =>
  list.map((payload) => {
    const trigger = expectedTrigger(name, typeof payload.action === "string" ? payload.action : undefined);
    const routed = [payload.sender?.id, payload.repository?.owner?.id].some((id) => CONNECTED_IDS.includes(id));
    return { event: name, payload, trigger, routed, forwarded: Boolean(trigger && routed && !UNLISTED.has(trigger)), body: JSON.stringify(payload) };
  }),
);
/** One delivery per distinct body: what is recorded, and forwarded, once. */
const distinct = [...new Map(deliveries.map((d) => [d.body, d])).values()];

beforeAll(async () => {
  [fake, receiver] = await Promise.all([startFakeGitHub(), startReceiver()]);
  app = await startTestApp({ ...fake.env() }, { worker: true });
  ada = await createOperator(app, "Ada");
  for (const [i, id] of CONNECTED_IDS.entries()) {
    fake.setIdentity({ id, login: `user-${id}` });
    await connectAccount(app, ada, { connector: "github", account: `account-${i}`, provider: fake });
  }
  const triggers = findConnector("github")!
    .triggers.filter((t) => !UNLISTED.has(t.name))
    .map((t) => ({ connector: "github", trigger: t.name }));
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers } }, { token: ada.token }));
}, scaled(120_000));

afterAll(async () => {
  await app?.close();
  await Promise.all([fake?.close(), receiver?.close()]);
});

test("the example set is GitHub's, and most of it is routable here", () => {
  expect(deliveries.length).toBeGreaterThanOrEqual(300);
  expect(new Set(deliveries.map((d) => d.event)).size).toBeGreaterThanOrEqual(50);
  expect(deliveries.filter((d) => d.forwarded).length).toBeGreaterThan(200);
  // Every event/action the examples show is one we have a trigger for, except actions GitHub no longer lists.
  const catalog = new Set(findConnector("github")!.triggers.map((t) => t.name));
  for (const d of deliveries) if (d.trigger) expect(catalog.has(d.trigger), d.trigger).toBe(true);
});

test("every example delivery is accepted; listed, routed ones are forwarded exactly once with GitHub's payload", { timeout: scaled(90_000) }, async () => {
  const url = `${app.url}/webhooks/${ada.deploymentId}/github`;
  const outcomes: Array<{ delivery: Delivery; status: number; outcome: Record<string, number> }> = [];
  // A few at a time over keep-alive connections, as GitHub's senders do.
  const queue = [...deliveries];
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let delivery = queue.shift(); delivery; delivery = queue.shift()) {
        const body = delivery.body;
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-github-event": delivery.event,
            "x-github-delivery": randomUUID(),
            "x-hub-signature-256": await sign(fake.webhookSecret, body),
            "user-agent": "GitHub-Hookshot/044aadd",
          },
          body,
        });
        outcomes.push({ delivery, status: response.status, outcome: (await response.json()) as Record<string, number> });
      }
    }),
  );

  for (const delivery of distinct) {
    const label = `${delivery.event}.${delivery.payload.action ?? ""}`;
    // The same bytes sent twice (concurrently, maybe): whichever came first counts, the others are duplicates.
    const answers = outcomes.filter((o) => o.delivery.body === delivery.body);
    for (const { status } of answers) expect(status, label).toBe(200);
    const sum = (key: string) => answers.reduce((total, { outcome }) => total + (outcome[key] ?? 0), 0);
    if (!delivery.trigger) expect({ received: sum("received"), recorded: sum("recorded") }, label).toEqual({ received: 0, recorded: 0 });
    else if (!delivery.routed) expect({ unrouted: sum("unrouted"), recorded: sum("recorded"), duplicates: sum("duplicates") }, label).toEqual({ unrouted: 1, recorded: 0, duplicates: answers.length - 1 });
    else {
      expect({ recorded: sum("recorded"), forwarded: sum("forwarded"), duplicates: sum("duplicates") }, label).toEqual({
        recorded: 1,
        forwarded: delivery.forwarded ? 1 : 0,
        duplicates: answers.length - 1,
      });
    }
  }
  expect(distinct.length).toBeLessThan(deliveries.length);

  const forwarded = distinct.filter((d) => d.forwarded);
  await receiver.waitFor((requests) => requests.length >= forwarded.length, scaled(60_000));
  const bodies = receiver.requests.map((r) => JSON.parse(r.body) as { id: string; trigger: string; data: Record<string, any> });
  expect(bodies).toHaveLength(forwarded.length);
  expect(new Set(bodies.map((b) => b.id)).size).toBe(forwarded.length);
  // Exactly one forwarded request per forwarded delivery, under the expected trigger.
  const perTrigger = (list: Array<{ trigger?: string }>) =>
    list.reduce<Record<string, number>>((counts, { trigger }) => ({ ...counts, [trigger!]: (counts[trigger!] ?? 0) + 1 }), {});
  expect(perTrigger(bodies)).toEqual(perTrigger(forwarded));
  // New triggers forward GitHub's payload unchanged (key order aside: stored as JSON, compared as JSON).
  const canonical = (value: unknown) => JSON.stringify(sortKeys(value));
  const sent = new Set(forwarded.map((d) => `${d.trigger} ${canonical(d.payload)}`));
  for (const body of bodies.filter((b) => !Object.values(ORIGINAL).includes(b.trigger))) {
    expect(sent.has(`${body.trigger} ${canonical(body.data)}`), body.trigger).toBe(true);
  }
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  return value;
}
