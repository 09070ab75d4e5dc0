import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * An event whose provider gives no readable time is dated when Switchyard received it: by the
 * service's clock (here a fake one, far from the real time), as everything else it dates.
 */
const received = new Date("2031-05-06T07:08:09.000Z");
let app: TestApp;
let github: FakeGitHub;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub();
  app = await startTestApp(github.env(), { clock: fakeClock(received) });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
});
afterAll(async () => {
  await app.close();
  await github.close();
});

async function occurredAtOf(title: string) {
  const events = ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;
  return events.find((event) => (event.payload as { issue: { title: string } }).issue.title === title)?.occurredAt;
}

async function send(title: string, createdAt: unknown) {
  const payload = githubIssuesPayload("opened", { title });
  (payload.issue as Record<string, unknown>).created_at = createdAt;
  const request = githubWebhook("issues", payload, github.webhookSecret);
  const response = await fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: request.headers, body: request.body });
  expect(response.status).toBe(200);
}

describe("when an event happened", () => {
  test("is the provider's time when it gives one", async () => {
    await send("dated", "2026-01-01T10:00:00Z");
    expect(await occurredAtOf("dated")).toBe("2026-01-01T10:00:00.000Z");
  });

  test("is the receive time, on the service's clock, when the provider's is missing or unreadable", async () => {
    await send("undated", undefined);
    await send("unreadable", "yesterday-ish");
    expect(await occurredAtOf("undated")).toBe(received.toISOString());
    expect(await occurredAtOf("unreadable")).toBe(received.toISOString());
  });
});
