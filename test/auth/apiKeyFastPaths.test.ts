import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, GenerateApiKey } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

// GET /api/data checks the key inside its page query, and GraphQL remembers a verified key for a
// moment (src/auth/apiKeys.ts). Neither may change what a caller sees: these are the stories where
// a shortcut could show through.

const DeploymentName = graphql(`
  query DeploymentName($id: ID!) { deployment(id: $id) { id name } }
`);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const listData = (query: string, apiKey?: string) => fetch(`${app.url}/api/data${query}`, { headers: apiKey ? { "x-api-key": apiKey } : {} });

describe("a key just used over GraphQL", () => {
  test("stops working at once when a new key is generated", async () => {
    const operator = await createOperator(app, "Cache");
    // Used twice: the second answer may come from what this instance remembers.
    for (let i = 0; i < 2; i++) expect(ok(await app.gql(DeploymentName, { id: operator.deploymentId }, { apiKey: operator.apiKey })).deployment?.id).toBe(operator.deploymentId);

    const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId }, { token: operator.token }));
    expect(errorCode(await app.gql(DeploymentName, { id: operator.deploymentId }, { apiKey: operator.apiKey }))).toBe("UNAUTHENTICATED");
    expect((await listData("", operator.apiKey)).status).toBe(401);
    expect(ok(await app.gql(DeploymentName, { id: operator.deploymentId }, { apiKey: generateApiKey.apiKey })).deployment?.id).toBe(operator.deploymentId);
  });

  test("keeps working through a grace period, beside its successor", async () => {
    const operator = await createOperator(app, "Grace");
    ok(await app.gql(DeploymentName, { id: operator.deploymentId }, { apiKey: operator.apiKey }));
    const { generateApiKey } = ok(
      await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId, gracePeriodSeconds: 600 }, { token: operator.token }),
    );
    for (const apiKey of [operator.apiKey, generateApiKey.apiKey]) {
      expect(ok(await app.gql(DeploymentName, { id: operator.deploymentId }, { apiKey })).deployment?.name).toBe("development");
      expect((await listData("", apiKey)).status).toBe(200);
    }
  });

  test("of another deployment still sees nothing of this one", async () => {
    const ada = await createOperator(app, "Ada");
    const eve = await createOperator(app, "Eve");
    ok(await app.gql(DeploymentName, { id: eve.deploymentId }, { apiKey: eve.apiKey }));
    expect(errorCode(await app.gql(DeploymentName, { id: ada.deploymentId }, { apiKey: eve.apiKey }))).toBe("FORBIDDEN");
  });
});

describe("GET /api/data: who is asking comes before what is asked", () => {
  test("bad parameters with no key or a wrong key are 401, not 400", async () => {
    const missing = await listData("?limit=0");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: "missing_api_key" });
    for (const key of ["nope", `sy_test_${"x".repeat(43)}`]) {
      const wrong = await listData("?offset=-1&envelope=maybe", key);
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ code: "invalid_api_key" });
    }
  });

  test("bad parameters with a good key are 400 invalid_parameter", async () => {
    const operator = await createOperator(app, "Params");
    const response = await listData("?limit=0", operator.apiKey);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "invalid_parameter" });
  });
});
