import { createHash, randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, type SignedRequest, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings, SigningSecret } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Concurrent webhooks are recorded together (one statement per batch, src/delivery/queue/enqueue.ts)
 * and handed to the local worker without a claim: what a user sees must not change — every request
 * answered for its own event, every event delivered with its own webhook-id, a provider's retry
 * stored once even when it arrives in the same batch, and lastEventAt read from the newest event.
 * GitHub signs no timestamp, so each webhook claims its body's digest (the replay check) in the
 * statement that records its event: a captured body re-sent under a new
 * delivery id is refused even when it arrives among many others, its own delivery's retry is not.
 */

let app: TestApp;
let github: FakeGitHub;
let receiver: Receiver;
let ada: Operator;
let signingSecret: string;

beforeAll(async () => {
  [github, receiver] = await Promise.all([startFakeGitHub(), startReceiver()]);
  app = await startTestApp({ ...github.env(), DELIVERY_RETRY_SCHEDULE: "100ms,200ms", DELIVERY_MAX_IN_FLIGHT_PER_URL: "16" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/burst`, triggers: [{ connector: "github", trigger: "issue_opened" }] } },
      { token: ada.token },
    ),
  );
  signingSecret = ok(await app.gql(SigningSecret, { id: ada.deploymentId }, { token: ada.token })).deployment!.signingSecret!;
});
afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), receiver?.close()]);
});

const post = (request: SignedRequest) =>
  fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: request.headers, body: request.body });
const titleOf = (body: string) => (JSON.parse(body) as { data: { issue: { title: string } } }).data.issue.title;
const connection = async () =>
  (await (await fetch(`${app.url}/api/v1/connections/github/alice`, { headers: { "x-api-key": ada.apiKey } })).json()) as { lastEventAt: string | null };

test("lastEventAt is null before the connection's first event", async () => {
  expect((await connection()).lastEventAt).toBeNull();
});

test("a burst of 90 concurrent webhooks for one account: each answered 2xx for itself, each delivered once with its own webhook-id", async () => {
  const count = 90;
  const requests = Array.from({ length: count }, (_, i) =>
    githubWebhook("issues", githubIssuesPayload("opened", { number: i + 1, title: `Burst ${i + 1}` }), github.webhookSecret),
  );
  const answers = await Promise.all(requests.map(post));
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ received: 1, recorded: 1, duplicates: 0, forwarded: 1, unrouted: 0 });
  }

  const burst = (all: Receiver["requests"]) => all.filter((r) => r.path === "/burst" && titleOf(r.body).startsWith("Burst "));
  await receiver.waitFor((all) => new Set(burst(all).map((r) => titleOf(r.body))).size === count, 30_000);
  const webhook = new Webhook(signingSecret);
  const idByTitle = new Map<string, string>();
  for (const request of burst(receiver.requests)) {
    const id = String(request.headers["webhook-id"]);
    expect(webhook.verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id, type: "github.issue_opened", account: "alice" });
    expect(idByTitle.get(titleOf(request.body)) ?? id).toBe(id);
    idByTitle.set(titleOf(request.body), id);
  }
  expect(new Set(idByTitle.values()).size).toBe(count);

  // The events the operator sees are the same ones, each with its delivery.
  const events = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;
  const stored = events.filter((e) => (e.payload as { issue?: { title?: string } }).issue?.title?.startsWith("Burst "));
  expect(stored).toHaveLength(count);
  expect(new Set(stored.map((e) => e.id))).toEqual(new Set(idByTitle.values()));
});

test("the same GitHub delivery sent twice at once is stored once: one answer records it, the other is a duplicate of it", async () => {
  const pairs = Array.from({ length: 8 }, (_, i) =>
    githubWebhook("issues", githubIssuesPayload("opened", { number: 500 + i, title: `Twice ${i}` }), github.webhookSecret),
  );
  const answers = await Promise.all(pairs.flatMap((request) => [post(request), post(request)]));
  const outcomes = (await Promise.all(answers.map((answer) => (expect(answer.status).toBe(200), answer.json())))) as Array<{ recorded: number; duplicates: number }>;
  for (let i = 0; i < pairs.length; i++) {
    const [first, second] = [outcomes[2 * i], outcomes[2 * i + 1]];
    expect(first.recorded + second.recorded).toBe(1);
    expect(first.duplicates + second.duplicates).toBe(1);
  }
  await receiver.waitFor((all) => new Set(all.filter((r) => r.path === "/burst" && titleOf(r.body).startsWith("Twice ")).map((r) => titleOf(r.body))).size === pairs.length);
  const events = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;
  for (let i = 0; i < pairs.length; i++) {
    expect(events.filter((e) => (e.payload as { issue?: { title?: string } }).issue?.title === `Twice ${i}`)).toHaveLength(1);
  }
});

describe("the replay check under concurrency (GitHub signs no timestamp)", () => {
  type Outcome = { received: number; recorded: number; duplicates: number; forwarded: number; unrouted: number };
  const answer = async (response: Response) => {
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as Outcome;
  };
  const stored = async (prefix: string) =>
    ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token }))
      .deployment!.events.map((e) => (e.payload as { issue?: { title?: string } }).issue?.title)
      .filter((title): title is string => Boolean(title?.startsWith(prefix)));
  const forwarded = (prefix: string) => receiver.requests.filter((r) => r.path === "/burst" && titleOf(r.body).startsWith(prefix)).map((r) => titleOf(r.body));
  const recorded: Outcome = { received: 1, recorded: 1, duplicates: 0, forwarded: 1, unrouted: 0 };
  const refused: Outcome = { received: 1, recorded: 0, duplicates: 1, forwarded: 0, unrouted: 0 };

  test("distinct bodies at once are each recorded once; then their replays under new delivery ids are refused while their retries are duplicates", async () => {
    const count = 40;
    const genuine = Array.from({ length: count }, (_, i) =>
      githubWebhook("issues", githubIssuesPayload("opened", { number: 1000 + i, title: `Claim ${i}` }), github.webhookSecret),
    );
    for (const outcome of await Promise.all(genuine.map(async (request) => answer(await post(request))))) expect(outcome).toEqual(recorded);

    // All at once: each body replayed with the same bytes and signature under a new X-GitHub-Delivery,
    // GitHub's own redelivery of it, and new bodies in between.
    const replays = genuine.map((request) => ({ ...request, headers: { ...request.headers, "x-github-delivery": randomUUID() } }));
    const fresh = Array.from({ length: 10 }, (_, i) =>
      githubWebhook("issues", githubIssuesPayload("opened", { number: 1100 + i, title: `Claim fresh ${i}` }), github.webhookSecret),
    );
    const [replayed, retried, added] = await Promise.all(
      [replays, genuine, fresh].map((requests) => Promise.all(requests.map(async (request) => answer(await post(request))))),
    );
    for (const outcome of replayed) expect(outcome).toEqual(refused);
    for (const outcome of retried) expect(outcome).toEqual(refused);
    for (const outcome of added) expect(outcome).toEqual(recorded);

    const titles = await stored("Claim ");
    expect(titles).toHaveLength(count + fresh.length);
    expect(new Set(titles).size).toBe(titles.length);
    await receiver.waitFor(() => new Set(forwarded("Claim ")).size === count + fresh.length);
    expect(forwarded("Claim ")).toHaveLength(count + fresh.length);
  });

  test("a delivery whose body was claimed but whose recording failed is recorded on GitHub's retry, while a replay of it sent at the same time is refused", async () => {
    const requests = Array.from({ length: 12 }, (_, i) =>
      githubWebhook("issues", githubIssuesPayload("opened", { number: 1200 + i, title: `Unrecorded ${i}` }), github.webhookSecret),
    );
    // What a request leaves when the database fails after its claim committed: the claim, no event.
    for (const request of requests) {
      await app.database.sql.query(
        `insert into inbound_body_digest (deployment_id, connector, digest, dedupe_key, seen_at) values ($1, 'github', $2, $3, now() at time zone 'UTC')`,
        [ada.deploymentId, createHash("sha256").update(request.body).digest("hex"), request.headers["x-github-delivery"]],
      );
    }
    const replays = requests.map((request) => ({ ...request, headers: { ...request.headers, "x-github-delivery": randomUUID() } }));
    const [retried, replayed] = await Promise.all([requests, replays].map((batch) => Promise.all(batch.map(async (request) => answer(await post(request))))));
    for (const outcome of retried) expect(outcome).toEqual(recorded);
    for (const outcome of replayed) expect(outcome).toEqual(refused);
    expect((await stored("Unrecorded ")).sort()).toEqual(requests.map((_, i) => `Unrecorded ${i}`).sort());
  });
});

test("a webhook naming no account is not stored, but its body is claimed: the same bytes under a new delivery id are a replay", async () => {
  // Neither routing id (sender.id, repository.owner.id): the statement routes it nowhere and still claims its body.
  const { sender: _, repository: __, ...payload } = githubIssuesPayload("opened", { number: 960, title: "Nobody's" });
  const genuine = githubWebhook("issues", payload, github.webhookSecret);
  const first = await post(genuine);
  expect(first.status).toBe(200);
  expect(await first.json()).toMatchObject({ received: 1, recorded: 0, unrouted: 1 });
  const digest = createHash("sha256").update(genuine.body).digest("hex");
  const claims = await app.database.sql.query("select 1 from inbound_body_digest where deployment_id = $1 and digest = $2", [ada.deploymentId, digest]);
  expect(claims).toHaveLength(1);

  const replay = await post({ ...genuine, headers: { ...genuine.headers, "x-github-delivery": randomUUID() } });
  expect(replay.status).toBe(200);
  expect(await replay.json()).toMatchObject({ received: 1, recorded: 0, duplicates: 1 });
});

test("lastEventAt (REST and GraphQL) is when the connection's newest event was recorded", async () => {
  const hook = githubWebhook("issues", githubIssuesPayload("opened", { number: 900, title: "Newest" }), github.webhookSecret);
  expect((await post(hook)).status).toBe(200);
  const events = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 1 }, { token: ada.token })).deployment!.events;
  expect((events[0].payload as { issue?: { title?: string } }).issue?.title).toBe("Newest");
  const newest = new Date(events[0].receivedAt as string).toISOString();

  expect((await connection()).lastEventAt).toBe(newest);
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ada.token}` },
    body: JSON.stringify({
      query: "query($id: ID!) { deployment(id: $id) { connections(first: 10) { nodes { account lastEventAt } } } }",
      variables: { id: ada.deploymentId },
    }),
  });
  const body = (await response.json()) as { data: { deployment: { connections: { nodes: Array<{ account: string; lastEventAt: string | null }> } } } };
  expect(body.data.deployment.connections.nodes).toEqual([{ account: "alice", lastEventAt: newest }]);
});
