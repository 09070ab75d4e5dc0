import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import {
  type FakeGitHub,
  type FakeJira,
  type FakeSlack,
  githubIssuesPayload,
  githubWebhook,
  jiraIssuePayload,
  jiraWebhook,
  type SignedRequest,
  slackEvent,
  slackMessageEvent,
  slackReactionEvent,
  slackUrlVerification,
  startFakeGitHub,
  startFakeJira,
  startFakeSlack,
} from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings, SigningSecret } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let github: FakeGitHub;
let slack: FakeSlack;
let jira: FakeJira;
let receiver: Receiver;
let ada: Operator;
let signingSecret: string;

beforeAll(async () => {
  [github, slack, jira, receiver] = await Promise.all([startFakeGitHub(), startFakeSlack(), startFakeJira(), startReceiver()]);
  app = await startTestApp({ ...github.env(), ...slack.env(), ...jira.env(), DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  await connectAccount(app, ada, { connector: "slack", account: "alice", provider: slack });
  await connectAccount(app, ada, { connector: "jira", account: "alice", provider: jira });
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: `${receiver.url}/hooks/switchyard`,
          headerKey: "X-Operator-Token",
          headerValue: "op-secret-123",
          triggers: [
            { connector: "github", trigger: "issue_opened" },
            { connector: "slack", trigger: "message_posted" },
            { connector: "jira", trigger: "issue_created" },
          ],
        },
      },
      { token: ada.token },
    ),
  );
  signingSecret = ok(await app.gql(SigningSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret!;
});
afterAll(async () => {
  await app.close();
  await Promise.all([github.close(), slack.close(), jira.close(), receiver.close()]);
});

const post = (connector: string, request: SignedRequest, deploymentId = ada.deploymentId) =>
  fetch(`${app.url}/webhooks/${deploymentId}/${connector}`, { method: "POST", headers: request.headers, body: request.body });

async function events() {
  return ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;
}

describe("a GitHub issue reaches the operator's server", () => {
  test("signed with the deployment's secret, with the operator's header and the SPEC body", async () => {
    const response = await post("github", githubWebhook("issues", githubIssuesPayload("opened", { title: "Login broken" }), github.webhookSecret));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: 1, recorded: 1, duplicates: 0, forwarded: 1, unrouted: 0 });

    const [event] = (await events()).filter((e) => e.type === "github.issue_opened");
    expect(event).toMatchObject({ connector: "github", trigger: "issue_opened", account: "alice" });
    expect(event.id).toMatch(/^evt_/);

    await receiver.waitFor(() => receiver.byEventId(event.id).length > 0);
    const [request] = receiver.byEventId(event.id);
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hooks/switchyard");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["user-agent"]).toMatch(/^Switchyard\/\d+\.\d+\.\d+/);
    expect(request.headers["x-operator-token"]).toBe("op-secret-123");

    const body = JSON.parse(request.body);
    expect(Object.keys(body)).toEqual(["id", "type", "connector", "trigger", "account", "resource", "deploymentId", "occurredAt", "data"]);
    expect(body).toMatchObject({
      id: event.id,
      type: "github.issue_opened",
      connector: "github",
      trigger: "issue_opened",
      account: "alice",
      // A GitHub app-level webhook is not tied to a watched resource.
      resource: null,
      deploymentId: ada.deploymentId,
      occurredAt: event.occurredAt,
    });
    expect(body.data).toEqual(event.payload);
    expect((body.data as { issue: { title: string } }).issue.title).toBe("Login broken");
    // The data as the connector wrote it, members in its order (stored as jsonb, they came sorted
    // by length, issue first), and as the event log shows it.
    expect(Object.keys(body.data)).toEqual(["action", "repository", "sender", "issue"]);
    expect(request.body.endsWith(`,"data":${JSON.stringify(event.payload)}}`)).toBe(true);

    // The operator verifies it exactly as the Standard Webhooks libraries do.
    expect(signingSecret).toMatch(/^whsec_/);
    expect(new Webhook(signingSecret).verify(request.body, request.headers as Record<string, string>)).toEqual(body);
    expect(() => new Webhook(`whsec_${Buffer.from("another secret entirely!").toString("base64")}`).verify(request.body, request.headers as Record<string, string>)).toThrow();
  });

  test("a provider's retry of the same delivery is stored and forwarded once", async () => {
    const request = githubWebhook("issues", githubIssuesPayload("opened", { number: 77 }), github.webhookSecret, { deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958" });
    const first = await (await post("github", request)).json();
    const second = await (await post("github", request)).json();
    expect(first).toMatchObject({ recorded: 1, forwarded: 1, duplicates: 0 });
    expect(second).toMatchObject({ recorded: 0, forwarded: 0, duplicates: 1 });
    const stored = (await events()).filter((e) => (e.payload as { issue: { number: number } }).issue?.number === 77);
    expect(stored).toHaveLength(1);
    expect(stored[0].deliveries).toHaveLength(1);
  });

  test("a trigger not in the Forwarding Trigger List is stored for the console but not forwarded", async () => {
    const response = await post("github", githubWebhook("issues", githubIssuesPayload("closed", { number: 5 }), github.webhookSecret));
    expect(await response.json()).toEqual({ received: 1, recorded: 1, duplicates: 0, forwarded: 0, unrouted: 0 });
    const closed = (await events()).find((e) => e.type === "github.issue_closed");
    expect(closed?.deliveries).toEqual([]);
    // A later, listed event arrives; the unlisted one never does.
    const later = await post("github", githubWebhook("issues", githubIssuesPayload("opened", { number: 6 }), github.webhookSecret));
    expect((await later.json()).forwarded).toBe(1);
    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).data.issue?.number === 6));
    expect(receiver.byEventId(closed!.id)).toEqual([]);
  });

  test("an event for an account nobody connected to this deployment is not stored at all", async () => {
    const stranger = { id: 999_001, login: "stranger" };
    const response = await post("github", githubWebhook("issues", githubIssuesPayload("opened", { sender: stranger, owner: stranger, number: 404 }), github.webhookSecret));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: 1, recorded: 0, duplicates: 0, forwarded: 0, unrouted: 1 });
    expect((await events()).some((e) => (e.payload as { issue?: { number: number } }).issue?.number === 404)).toBe(false);
  });
});

describe("Slack and Jira", () => {
  test("Slack's url_verification handshake is answered with the challenge", async () => {
    const response = await post("slack", slackEvent(slackUrlVerification("the-challenge-123"), slack.signingSecret));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("the-challenge-123");
  });

  test("a Slack message and a Jira issue are forwarded; a Slack reaction (unlisted) is not", async () => {
    const message = await (await post("slack", slackEvent(slackMessageEvent({ text: "deploy done" }), slack.signingSecret))).json();
    expect(message).toMatchObject({ recorded: 1, forwarded: 1 });
    const reaction = await (await post("slack", slackEvent(slackReactionEvent(), slack.signingSecret))).json();
    expect(reaction).toMatchObject({ recorded: 1, forwarded: 0 });
    const issue = await (await post("jira", jiraWebhook(jiraIssuePayload("jira:issue_created", { summary: "Checkout down" }), jira.webhookSecret))).json();
    expect(issue).toMatchObject({ recorded: 1, forwarded: 1 });

    await receiver.waitFor((requests) => requests.some((r) => JSON.parse(r.body).type === "slack.message_posted") && requests.some((r) => JSON.parse(r.body).type === "jira.issue_created"));
    const slackBody = JSON.parse(receiver.requests.find((r) => JSON.parse(r.body).type === "slack.message_posted")!.body);
    expect(slackBody).toMatchObject({ connector: "slack", account: "alice", data: { text: "deploy done" } });
  });
});

describe("verified deliveries with hostile content are stored, never a 500 the provider would retry forever", () => {
  const received = (connector: string, request: SignedRequest) =>
    post(connector, request).then(async (response) => ({ status: response.status, body: await response.text() }));

  test("dates out of range (Jira 1e20, Slack 1e20, GitHub year -271821) fall back to the time of receipt", async () => {
    const before = Date.now();
    const gh = githubIssuesPayload("opened", { number: 501 }) as { issue: Record<string, unknown> };
    gh.issue.created_at = "-271821-04-20T00:00:00Z";
    const jiraPayload = jiraIssuePayload("jira:issue_created", { summary: "far future", timestamp: 1e20 });
    const slackPayload = { ...slackMessageEvent({ text: "far future", ts: "1e20" }), event_time: 1e20 };
    for (const [connector, request] of [
      ["github", githubWebhook("issues", gh, github.webhookSecret)],
      ["jira", jiraWebhook(jiraPayload, jira.webhookSecret)],
      ["slack", slackEvent(slackPayload, slack.signingSecret)],
    ] as const) {
      const answer = await received(connector, request);
      expect(answer.status, `${connector}: ${answer.body}`).toBe(200);
      expect(JSON.parse(answer.body), connector).toMatchObject({ recorded: 1 });
    }
    const stored = (await events()).filter(
      (e) => (e.payload as { issue?: { number?: number; summary?: string } }).issue?.number === 501 ||
        (e.payload as { issue?: { summary?: string } }).issue?.summary === "far future" ||
        (e.payload as { text?: string }).text === "far future",
    );
    expect(stored.map((e) => e.connector).sort()).toEqual(["github", "jira", "slack"]);
    for (const event of stored) {
      expect(Date.parse(event.occurredAt), event.connector).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(event.occurredAt), event.connector).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  test("an empty X-GitHub-Delivery is no delivery id: two different bodies are two events", async () => {
    const first = githubWebhook("issues", githubIssuesPayload("opened", { number: 601 }), github.webhookSecret, { deliveryId: "" });
    const second = githubWebhook("issues", githubIssuesPayload("opened", { number: 602 }), github.webhookSecret, { deliveryId: " " });
    expect(first.headers["x-github-delivery"]).toBe("");
    expect(JSON.parse((await received("github", first)).body)).toMatchObject({ recorded: 1, duplicates: 0 });
    expect(JSON.parse((await received("github", second)).body)).toMatchObject({ recorded: 1, duplicates: 0 });
    // The body digest still recognizes the provider's retry of the same body.
    expect(JSON.parse((await received("github", first)).body)).toMatchObject({ recorded: 0, duplicates: 1 });
    const numbers = (await events()).map((e) => (e.payload as { issue?: { number?: number } }).issue?.number);
    expect(numbers.filter((n) => n === 601 || n === 602).sort()).toEqual([601, 602]);
  });

  test("the same rule for Jira's identifier header and Slack's event_id", async () => {
    for (const summary of ["empty id A", "empty id B"]) {
      const request = jiraWebhook(jiraIssuePayload("jira:issue_created", { summary, issueId: summary === "empty id A" ? "20001" : "20002" }), jira.webhookSecret, { identifier: "" });
      expect(JSON.parse((await received("jira", request)).body), summary).toMatchObject({ recorded: 1 });
    }
    for (const text of ["no event id A", "no event id B"]) {
      const request = slackEvent(slackMessageEvent({ text, eventId: "", ts: text.endsWith("A") ? "1700000000.000001" : "1700000000.000002" }), slack.signingSecret);
      expect(JSON.parse((await received("slack", request)).body), text).toMatchObject({ recorded: 1 });
    }
  });

  test("NUL characters and lone surrogates in a signed body are stored as U+FFFD", async () => {
    const payload = githubIssuesPayload("opened", { number: 701, title: "nul\u0000here \ud800" });
    const answer = await received("github", githubWebhook("issues", payload, github.webhookSecret));
    expect(answer.status, answer.body).toBe(200);
    const stored = (await events()).find((e) => (e.payload as { issue?: { number?: number } }).issue?.number === 701);
    expect((stored!.payload as { issue: { title: string } }).issue.title).toBe("nul\uFFFDhere \uFFFD");
    const slackAnswer = await received("slack", slackEvent(slackMessageEvent({ text: "x", eventId: "Ev\u0000NUL" }), slack.signingSecret));
    expect(slackAnswer.status, slackAnswer.body).toBe(200);
  });
});

describe("requests that are not the provider's are refused and leave nothing behind", () => {
  test("every bad signature answers 401 problem+json", async () => {
    const before = (await events()).length;
    const payload = githubIssuesPayload("opened", { number: 900 });
    const good = githubWebhook("issues", payload, github.webhookSecret);
    const stale = new Date(Date.now() - 6 * 60_000);
    const cases: Array<[string, SignedRequest]> = [
      ["github", githubWebhook("issues", payload, "not-the-secret")],
      ["github", { headers: { ...good.headers, "x-hub-signature-256": "" }, body: good.body }],
      ["github", { headers: Object.fromEntries(Object.entries(good.headers).filter(([k]) => k !== "x-hub-signature-256")), body: good.body }],
      ["github", { headers: good.headers, body: good.body.replace("Found a bug", "Found a bag") }],
      ["slack", slackEvent(slackMessageEvent(), "not-the-secret")],
      ["slack", slackEvent(slackMessageEvent(), slack.signingSecret, { timestamp: stale })],
      ["slack", slackEvent(slackUrlVerification(), "not-the-secret")],
      ["jira", jiraWebhook(jiraIssuePayload("jira:issue_created"), "not-the-secret")],
      ["jira", { headers: { "content-type": "application/json" }, body: JSON.stringify(jiraIssuePayload("jira:issue_created")) }],
    ];
    for (const [connector, request] of cases) {
      const response = await post(connector, request);
      expect(response.status, `${connector} ${JSON.stringify(request.headers)}`).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ status: 401, code: "invalid_signature" });
    }
    expect((await events()).length).toBe(before);
  });

  test("unknown connector or deployment: 404; a body over 1 MiB: 413", async () => {
    const request = githubWebhook("issues", githubIssuesPayload("opened"), github.webhookSecret);
    const unknownConnector = await post("myspace", request);
    expect(unknownConnector.status).toBe(404);
    expect(await unknownConnector.json()).toMatchObject({ code: "unknown_connector" });
    const unknownDeployment = await post("github", request, "no-such-deployment");
    expect(unknownDeployment.status).toBe(404);
    expect(await unknownDeployment.json()).toMatchObject({ code: "not_found" });

    const big = githubWebhook("issues", { ...githubIssuesPayload("opened"), padding: "x".repeat(1024 * 1024) }, github.webhookSecret);
    const tooLarge = await post("github", big).catch((error: Error) => error);
    if (tooLarge instanceof Response) {
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toMatchObject({ code: "payload_too_large" });
    } else {
      // The server may close the connection before the whole body is sent; what matters is nothing was stored.
      expect(tooLarge).toBeInstanceOf(Error);
    }
  });
});
