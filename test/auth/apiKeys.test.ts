import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, GenerateApiKey } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const DeploymentKey = graphql(`
  query DeploymentKey($id: ID!) { deployment(id: $id) { id name apiKey { prefix createdAt lastUsedAt expiresAt } } }
`);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const listData = (apiKey: string) => fetch(`${app.url}/api/data`, { headers: { "x-api-key": apiKey } });

test("a key is shown once in the form sy_<word>_<secret>; afterwards only its prefix", async () => {
  const operator = await createOperator(app);
  const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: operator.productionDeploymentId }, { token: operator.token }));
  expect(generateApiKey.apiKey).toMatch(/^sy_live_[A-Za-z0-9_-]{43}$/);
  expect(operator.apiKey).toMatch(/^sy_test_[A-Za-z0-9_-]{43}$/);
  expect(generateApiKey.apiKey.startsWith(generateApiKey.key.prefix)).toBe(true);

  const { deployment } = ok(await app.gql(DeploymentKey, { id: operator.productionDeploymentId }, { token: operator.token }));
  expect(deployment?.apiKey?.prefix).toBe(generateApiKey.key.prefix);
  expect(JSON.stringify(deployment)).not.toContain(generateApiKey.apiKey);
});

test("the key's hash is stored, never the key", async () => {
  const operator = await createOperator(app);
  const rows = await app.database.sql.query<{ hash: string; prefix: string }>("select hash, prefix from api_key where deployment_id = $1", [
    operator.deploymentId,
  ]);
  expect(rows).toHaveLength(1);
  expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
  expect(JSON.stringify(rows)).not.toContain(operator.apiKey.slice(12));
});

test("generating a second key revokes the first at once", async () => {
  const operator = await createOperator(app);
  expect((await listData(operator.apiKey)).status).toBe(200);
  const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId }, { token: operator.token }));
  expect((await listData(operator.apiKey)).status).toBe(401);
  expect((await listData(generateApiKey.apiKey)).status).toBe(200);
});

test("with a grace period both keys work until it ends", async () => {
  const operator = await createOperator(app);
  const { generateApiKey } = ok(
    await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId, gracePeriodSeconds: 3600 }, { token: operator.token }),
  );
  expect((await listData(operator.apiKey)).status).toBe(200);
  expect((await listData(generateApiKey.apiKey)).status).toBe(200);
  const [old] = await app.database.sql.query<{ expires_at: Date }>(
    "select expires_at from api_key where deployment_id = $1 and hash <> $2 order by created_at limit 1",
    [operator.deploymentId, (await import("../../src/crypto/secrets.ts")).sha256Hex(generateApiKey.apiKey)],
  );
  const remaining = new Date(old.expires_at).getTime() - Date.now();
  expect(remaining).toBeGreaterThan(3500_000);
  expect(remaining).toBeLessThanOrEqual(3600_000);

  // Expire the grace period as time would, then the old key is refused.
  await app.database.sql.query("update api_key set expires_at = now() - interval '1 second' where expires_at is not null and deployment_id = $1", [
    operator.deploymentId,
  ]);
  expect((await listData(operator.apiKey)).status).toBe(401);
  expect((await listData(generateApiKey.apiKey)).status).toBe(200);
});

test("a grace period longer than 7 days or negative is refused", async () => {
  const operator = await createOperator(app);
  for (const gracePeriodSeconds of [-1, 7 * 24 * 3600 + 1]) {
    const result = await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId, gracePeriodSeconds }, { token: operator.token });
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
  }
  expect((await listData(operator.apiKey)).status).toBe(200);
});

test("lastUsedAt records when the key was used", async () => {
  const operator = await createOperator(app);
  const before = ok(await app.gql(DeploymentKey, { id: operator.deploymentId }, { token: operator.token }));
  expect(before.deployment?.apiKey?.lastUsedAt).toBeNull();
  await listData(operator.apiKey);
  await expect
    .poll(async () => ok(await app.gql(DeploymentKey, { id: operator.deploymentId }, { token: operator.token })).deployment?.apiKey?.lastUsedAt)
    .not.toBeNull();
});

test("an API key cannot generate its own successor", async () => {
  const operator = await createOperator(app);
  const result = await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId }, { apiKey: operator.apiKey });
  expect(errorCode(result)).toBe("FORBIDDEN");
  expect((await listData(operator.apiKey)).status).toBe(200);
});
