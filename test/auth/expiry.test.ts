import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fakeClock } from "../helpers/clock.ts";
import { createOperator, GenerateApiKey } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

// Sessions and API keys end by the app's clock: these stories move it instead of waiting.

const ExpiryViewer = graphql(`
  query ExpiryViewer { viewer { id } }
`);

const ExpiryDeployment = graphql(`
  query ExpiryDeployment($id: ID!) { deployment(id: $id) { id } }
`);

const clock = fakeClock(new Date());
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ SESSION_TTL_HOURS: "24" }, { clock });
});
afterAll(() => app.close());

test("a console session works until its time is up, then the bearer token is refused", async () => {
  const operator = await createOperator(app, "Clocked");
  expect(ok(await app.gql(ExpiryViewer, {}, { token: operator.token })).viewer?.id).toBe(operator.userId);

  clock.advance(24 * 3_600_000 - 60_000);
  expect(ok(await app.gql(ExpiryViewer, {}, { token: operator.token })).viewer?.id).toBe(operator.userId);

  clock.advance(60_000);
  const expired = await app.gql(ExpiryViewer, {}, { token: operator.token });
  expect(errorCode(expired)).toBe("UNAUTHENTICATED");
  expect(expired.errors![0].message).toBe("The session has expired or was logged out. Log in again.");
});

test("a replaced key keeps working through its grace period and stops at its end", async () => {
  const operator = await createOperator(app, "Graceful");
  const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId, gracePeriodSeconds: 600 }, { token: operator.token }));

  clock.advance(599_000);
  for (const apiKey of [operator.apiKey, generateApiKey.apiKey]) {
    expect(ok(await app.gql(ExpiryDeployment, { id: operator.deploymentId }, { apiKey })).deployment?.id).toBe(operator.deploymentId);
  }

  clock.advance(1_000);
  expect(errorCode(await app.gql(ExpiryDeployment, { id: operator.deploymentId }, { apiKey: operator.apiKey }))).toBe("UNAUTHENTICATED");
  expect(ok(await app.gql(ExpiryDeployment, { id: operator.deploymentId }, { apiKey: generateApiKey.apiKey })).deployment?.id).toBe(operator.deploymentId);
});

test("a wrong API key gets the same answer on REST and GraphQL", async () => {
  const operator = await createOperator(app, "Same");
  await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId }, { token: operator.token });

  for (const apiKey of [operator.apiKey, "sy_test_thisIsNotAKeyThatWasEverIssuedToAnyone0"]) {
    const rest = await fetch(`${app.url}/api/v1/connector/service/github/auth-url?account=a`, { headers: { "x-api-key": apiKey } });
    expect(rest.status).toBe(401);
    const problem = (await rest.json()) as { code: string; detail: string };
    expect(problem.code).toBe("invalid_api_key");

    const graphqlAnswer = await app.gql(ExpiryDeployment, { id: operator.deploymentId }, { apiKey });
    expect(errorCode(graphqlAnswer)).toBe("UNAUTHENTICATED");
    expect(graphqlAnswer.errors![0].message).toBe(problem.detail);
  }
});
