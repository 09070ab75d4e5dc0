/**
 * Verified deliveries an attacker can still shape: a body nested thousands of levels deep (a 500
 * the provider would redeliver forever), and a captured delivery re-sent with a new delivery id
 * (providers without a signed timestamp cannot tell a replay from a new event by the signature).
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, type SignedRequest, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let github: FakeGitHub;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  [github, receiver] = await Promise.all([startFakeGitHub(), startReceiver()]);
  app = await startTestApp({ ...github.env(), DELIVERY_RETRY_SCHEDULE: "100ms,200ms" }, { worker: true });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  ok(
    await app.gql(
      SaveForwardingSettings,
      { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/hooks`, triggers: [{ connector: "github", trigger: "issues_edited" }] } },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), receiver?.close()]);
});

const post = (request: SignedRequest) =>
  fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: request.headers, body: request.body });
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
});
