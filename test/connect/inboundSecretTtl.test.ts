import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { INBOUND_CREDENTIALS_TTL_MS } from "../../src/credentials/inboundSecrets.ts";
import { graphql } from "../generated/gql.ts";
import { fakeClock } from "../helpers/clock.ts";
import { type FakeGitHub, githubIssuesPayload, githubWebhook, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const SetCredentials = graphql(`
  mutation SetConnectorCredentials($deploymentId: ID!, $connector: String!, $input: ConnectorCredentialsInput!) {
    setConnectorCredentials(deploymentId: $deploymentId, connector: $connector, input: $input) { connector clientId clientSecretSet webhookSecretSet updatedAt }
  }
`);

const clock = fakeClock();
let app: TestApp;
let github: FakeGitHub;
let ada: Operator;

beforeAll(async () => {
  github = await startFakeGitHub();
  app = await startTestApp(github.env(), { clock });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app.close();
  await github.close();
});

/** An issue event for Ada's deployment, signed with `secret`: its status says whether that secret is in force. */
const deliverSignedWith = async (secret: string) => {
  const request = githubWebhook("issues", githubIssuesPayload("opened"), secret);
  const response = await fetch(`${app.url}/webhooks/${ada.deploymentId}/github`, { method: "POST", headers: request.headers, body: request.body });
  await response.arrayBuffer();
  return response.status;
};

describe("a webhook secret changed on another instance", () => {
  test(`is in force here once this instance's copy is ${INBOUND_CREDENTIALS_TTL_MS} ms old on its clock, not before`, async () => {
    ok(
      await app.gql(
        SetCredentials,
        { deploymentId: ada.deploymentId, connector: "github", input: { clientId: "ada-app", clientSecret: "ada-secret", webhookSecret: "old-hook-secret" } },
        { token: ada.token },
      ),
    );
    expect(await deliverSignedWith("old-hook-secret")).toBe(200);

    // Another instance stores a new secret: this one is not told, it only reads the row again later.
    await app.database.prisma.connectorCredentials.updateMany({
      where: { deploymentId: ada.deploymentId, connector: "github" },
      data: { webhookSecretEncrypted: app.app.box.seal("new-hook-secret") },
    });
    expect(await deliverSignedWith("new-hook-secret")).toBe(401);

    clock.advance(INBOUND_CREDENTIALS_TTL_MS - 1);
    expect(await deliverSignedWith("new-hook-secret")).toBe(401);
    expect(await deliverSignedWith("old-hook-secret")).toBe(200);

    clock.advance(1);
    expect(await deliverSignedWith("new-hook-secret")).toBe(200);
    expect(await deliverSignedWith("old-hook-secret")).toBe(401);
  });
});
