/**
 * Verified deliveries an attacker can still shape: a body nested thousands of levels deep (a 500
 * the provider would redeliver forever), and a captured delivery re-sent with a new delivery id
 * (providers without a signed timestamp cannot tell a replay from a new event by the signature).
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import {
  type FakeGitHub,
  type FakeJira,
  githubIssuesPayload,
  githubWebhook,
  jiraIssuePayload,
  jiraWebhook,
  type SignedRequest,
  startFakeGitHub,
  startFakeJira,
} from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";
import { MAX_PAYLOAD_DEPTH } from "../../src/forwarding/inbound.ts";

let app: TestApp;
let github: FakeGitHub;
let jira: FakeJira;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  [github, jira, receiver] = await Promise.all([startFakeGitHub(), startFakeJira(), startReceiver()]);
  app = await startTestApp({ ...github.env(), ...jira.env(), DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  await connectAccount(app, ada, { connector: "jira", account: "alice", provider: jira });
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers: [{ connector: "github", trigger: "issues_edited" }, { connector: "jira", trigger: "issue_created" }] } },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), jira?.close(), receiver?.close()]);
});

const post = (request: SignedRequest, connector = "github") =>
  fetch(`${app.url}/webhooks/${ada.deploymentId}/${connector}`, { method: "POST", headers: request.headers, body: request.body });
const events = async () => ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;
const issueNumber = (payload: unknown) => (payload as { issue?: { number?: number } }).issue?.number;

/** `{"a":{"a":…{"a":1}…}}`, `levels` objects deep, as JSON text (too deep for JSON.stringify itself). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/** A GitHub delivery of `payload` plus a member `deep` holding `deepJson`, signed over the exact bytes. */
function withDeepMember(payload: Record<string, unknown>, deepJson: string): SignedRequest {
  const body = `${JSON.stringify(payload).slice(0, -1)},"deep":${deepJson}}`;
  const { headers } = githubWebhook("issues", payload, github.webhookSecret);
  return {
    headers: {
      ...headers,
      "x-hub-signature-256": `sha256=${createHmac("sha256", github.webhookSecret).update(body).digest("hex")}`,
      "x-hub-signature": `sha1=${createHmac("sha1", github.webhookSecret).update(body).digest("hex")}`,
    },
    body,
  };
}

describe("a correctly signed body nested thousands of levels deep", () => {
  test("is answered 2xx and stored and forwarded with a placeholder instead of its payload", async () => {
    const request = withDeepMember(githubIssuesPayload("edited", { number: 701 }), nested(4_500));
    expect(request.body.length).toBeLessThan(40_000);
    const response = await post(request);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1 });

    const stored = (await events()).find((e) => e.type === "github.issues_edited" && (e.payload as { switchyard?: unknown }).switchyard);
    expect(stored?.payload).toEqual({
      switchyard: { omitted: "payload_too_deep", detail: expect.stringContaining("128 levels"), maxDepth: 128 },
    });
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).data?.switchyard?.omitted === "payload_too_deep"));

    // The provider's redelivery is a duplicate, not a second placeholder.
    expect(await (await post(request)).json()).toMatchObject({ recorded: 0, duplicates: 1 });
  });

  test("a payload within the bound is stored as it came", async () => {
    // The top level plus `deep`'s 100 objects: 101 levels.
    const request = withDeepMember(githubIssuesPayload("edited", { number: 702 }), nested(100));
    expect(await (await post(request)).json()).toMatchObject({ recorded: 1 });
    const stored = (await events()).find((e) => issueNumber(e.payload) === 702);
    expect(stored?.payload).toEqual(JSON.parse(request.body));
  });

  test("the bound is MAX_PAYLOAD_DEPTH levels: 128 are stored as they came, 129 get the placeholder", async () => {
    // The top level plus `deep`'s objects.
    const atBound = withDeepMember(githubIssuesPayload("edited", { number: 703 }), nested(MAX_PAYLOAD_DEPTH - 1));
    const pastBound = withDeepMember(githubIssuesPayload("edited", { number: 704 }), nested(MAX_PAYLOAD_DEPTH));
    const placeholders = async () => (await events()).filter((e) => (e.payload as { switchyard?: { omitted?: string } }).switchyard?.omitted === "payload_too_deep").length;
    const before = await placeholders();
    expect(await (await post(atBound)).json()).toMatchObject({ recorded: 1 });
    expect(await (await post(pastBound)).json()).toMatchObject({ recorded: 1 });
    const stored = await events();
    expect(stored.find((e) => issueNumber(e.payload) === 703)?.payload).toEqual(JSON.parse(atBound.body));
    expect(stored.some((e) => issueNumber(e.payload) === 704)).toBe(false);
    expect(await placeholders()).toBe(before + 1);
  });
});

describe("a captured delivery re-sent under a new delivery id (schemes that sign no timestamp)", () => {
  const forwardedCount = (predicate: (body: { data?: Record<string, unknown> }) => boolean) =>
    receiver.requests.filter((r) => predicate(JSON.parse(r.body))).length;

  test("GitHub: answered 2xx, and no second event is recorded or forwarded within the replay window", async () => {
    const genuine = githubWebhook("issues", githubIssuesPayload("edited", { number: 801 }), github.webhookSecret);
    expect(await (await post(genuine)).json()).toMatchObject({ recorded: 1, forwarded: 1 });
    await receiver.waitFor(() => forwardedCount((b) => issueNumber(b.data) === 801) === 1);

    // The same bytes and signature, a new X-GitHub-Delivery: what someone who captured the request can send.
    const replay = { ...genuine, headers: { ...genuine.headers, "x-github-delivery": "replayed-1" } };
    const answer = await post(replay);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ received: 1, recorded: 0, duplicates: 1, forwarded: 0, unrouted: 0 });
    // GitHub's own redelivery of that delivery is a duplicate as before.
    expect(await (await post(genuine)).json()).toMatchObject({ recorded: 0, duplicates: 1 });
    expect((await events()).filter((e) => issueNumber(e.payload) === 801)).toHaveLength(1);

    // A different body under a new id is a new event, of course.
    expect(await (await post(githubWebhook("issues", githubIssuesPayload("edited", { number: 802 }), github.webhookSecret))).json()).toMatchObject({ recorded: 1 });
    expect(forwardedCount((b) => issueNumber(b.data) === 801)).toBe(1);
  });

  test("Jira: the same, with X-Atlassian-Webhook-Identifier", async () => {
    const payload = jiraIssuePayload("jira:issue_created", { summary: "replayed issue" });
    const genuine = jiraWebhook(payload, jira.webhookSecret);
    expect(await (await post(genuine, "jira")).json()).toMatchObject({ recorded: 1 });
    const replay = jiraWebhook(payload, jira.webhookSecret, { identifier: "another-identifier" });
    expect(replay.body).toBe(genuine.body);
    const answer = await post(replay, "jira");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ recorded: 0, duplicates: 1 });
    expect((await events()).filter((e) => (e.payload as { issue?: { summary?: string } }).issue?.summary === "replayed issue")).toHaveLength(1);
  });

  test("past the connector's window (GitHub: 3 days) the same body is an event again", async () => {
    const genuine = githubWebhook("issues", githubIssuesPayload("edited", { number: 803 }), github.webhookSecret);
    expect(await (await post(genuine)).json()).toMatchObject({ recorded: 1 });
    // Time moves on: the digest was seen three days and a minute ago.
    await app.database.sql.query(`update inbound_body_digest set seen_at = seen_at - interval '3 days 1 minute' where connector = 'github'`);
    const later = { ...genuine, headers: { ...genuine.headers, "x-github-delivery": "three-days-later" } };
    expect(await (await post(later)).json()).toMatchObject({ recorded: 1, duplicates: 0 });
    expect((await events()).filter((e) => issueNumber(e.payload) === 803)).toHaveLength(2);
    // …and that arrival starts a new window.
    const again = { ...genuine, headers: { ...genuine.headers, "x-github-delivery": "again" } };
    expect(await (await post(again)).json()).toMatchObject({ recorded: 0, duplicates: 1 });
  });
});
