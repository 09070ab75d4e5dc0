import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { connectAccount, getAuthUrl, walkConnectFlow } from "../helpers/connectFlow.ts";
import { type FakeGitHub, type FakeGoogle, githubIssuesPayload, githubWebhook, startFakeGitHub, startFakeGoogle } from "../helpers/fakeProviders/index.ts";
import { DeploymentEvents, SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * A provider (or whoever controls an account there) can put a NUL character or an unpaired UTF-16
 * surrogate in anything it answers: a login, a mail subject, an issue title. PostgreSQL stores
 * neither, so each used to be a 500 — at the OAuth callback after the state was spent, or on every
 * Pub/Sub redelivery of a mailbox's push, stalling it for good. Now each is replaced by U+FFFD and
 * everything else goes through as usual.
 */

let app: TestApp;
let github: FakeGitHub;
let google: FakeGoogle;
let ada: Operator;

beforeAll(async () => {
  [github, google] = await Promise.all([
    startFakeGitHub({ user: { login: "octo\u0000cat", name: "The \ud800 Octocat" } }),
    startFakeGoogle(),
  ]);
  app = await startTestApp({ ...github.env(), ...google.env() });
  ada = await createOperator(app, "Ada");
  ok(
    await app.gql(
      SaveForwardingSettings,
      {
        deploymentId: ada.deploymentId,
        input: {
          forwardingUrl: "http://127.0.0.1:9/unused",
          triggers: [
            { connector: "gmail", trigger: "email_received" },
            { connector: "github", trigger: "issue_opened" },
          ],
        },
      },
      { token: ada.token },
    ),
  );
});
afterAll(async () => {
  await app?.close();
  await Promise.all([github?.close(), google?.close()]);
});

const events = async () => ok(await app.gql(DeploymentEvents, { id: ada.deploymentId, limit: 100 }, { token: ada.token })).deployment!.events;

describe("a provider identity with a NUL and an unpaired surrogate", () => {
  test("connects, with the characters replaced, and the done page says who connected", async () => {
    const walk = await walkConnectFlow(await getAuthUrl(app, ada.apiKey, "github", "octo"));
    expect(walk.final.status).toBe(200);
    expect(walk.final.body).toContain("octo\uFFFDcat");
    const stored = await app.database.prisma.connectedAccount.findFirstOrThrow({ where: { deploymentId: ada.deploymentId, connector: "github", account: "octo" } });
    expect(stored).toMatchObject({ status: "ACTIVE", externalId: "583231", metadata: { login: "octo\uFFFDcat", name: "The \uFFFD Octocat" } });
  });

  test("a webhook body carrying them is stored and forwarded with them replaced", async () => {
    const payload = githubIssuesPayload("opened", { number: 7, title: "nul \u0000 and half \udc00 a pair", body: "ok" });
    const signed = githubWebhook("issues", payload, github.webhookSecret);
    // JSON.stringify wrote them as \u0000 and \udc00 escapes, as a provider's JSON would.
    expect(signed.body).toContain("\\u0000");
    const response = await fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: signed.headers, body: signed.body });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ recorded: 1, forwarded: 1 });
    const event = (await events()).find((e) => e.type === "github.issue_opened")!;
    expect((event.payload as { issue: { title: string } }).issue.title).toBe("nul \uFFFD and half \uFFFD a pair");
  });
});

describe("a Gmail message with a NUL in its subject", () => {
  test("is forwarded with the character replaced, and the mailbox keeps moving", async () => {
    await connectAccount(app, ada, { connector: "gmail", account: "alice", provider: google });
    const push = async () => {
      const signed = google.push();
      return fetch(`${app.url}/webhooks/${ada.deploymentId}/gmail`, { method: "POST", headers: signed.headers, body: signed.body });
    };
    // A user-made label name reaches the event as Gmail's history lists it, not through a header.
    google.receiveEmail({ subject: "Invoice\u0000 42", snippet: "half \ud800 a pair", from: "billing@example.com", labelIds: ["INBOX", "Label_\u0000"] });
    google.receiveEmail({ subject: "A plain one" });
    const first = await push();
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: 2, recorded: 2, forwarded: 2 });

    google.receiveEmail({ subject: "The next one" });
    expect(await (await push()).json()).toMatchObject({ received: 1, recorded: 1, forwarded: 1 });

    const mails = (await events()).filter((e) => e.type === "gmail.email_received").map((e) => e.payload as { subject: string; snippet: string; labelIds: string[] });
    expect(mails.map((m) => m.subject).sort()).toEqual(["A plain one", "Invoice\uFFFD 42", "The next one"]);
    expect(mails.find((m) => m.subject.startsWith("Invoice"))).toMatchObject({ snippet: "half \uFFFD a pair", labelIds: ["INBOX", "Label_\uFFFD"] });
  });
});
