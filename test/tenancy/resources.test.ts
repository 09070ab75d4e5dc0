import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeDeclaredProvider, startDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { createOperator, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { everyone, expectTenancy, type Who } from "../helpers/tenancy.ts";
import { type Caller, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * A connection's resources, as each kind of caller: the deployment's members read them; owners,
 * admins and the deployment's key watch and unwatch; another deployment's key finds nothing on
 * REST (404 `connection_not_found`, as the connections API). A connector without resource
 * parameters takes none (400 `invalid_parameter`).
 */

const Read = `query($id: ID!) { deployment(id: $id) { connectedAccounts { id watching resources { id params } } } }`;
const Watch = `mutation($c: ID!, $p: JSON!) { watchResource(connectionId: $c, params: $p) { id } }`;
const Unwatch = `mutation($id: ID!) { unwatchResource(id: $id) }`;
const LogIn = `mutation($e: String!) { logIn(email: $e, password: "a fine password") { token } }`;

let app: TestApp;
let gitlab: FakeDeclaredProvider;
let todoist: FakeDeclaredProvider;
let owner: Operator;
let other: Operator;
let callers: Record<Who, Caller>;
let connectionId: string;
let resourceId: string;

beforeAll(async () => {
  [gitlab, todoist] = await Promise.all([startDeclaredProvider(findConnector("gitlab")!), startDeclaredProvider(findConnector("todoist")!)]);
  app = await startTestApp({ ...gitlab.env(), ...todoist.env() });
  [owner, other] = await Promise.all([createOperator(app, "Owner"), createOperator(app, "Other")]);
  const email = `member-${Date.now()}@example.com`;
  ok(await app.gql(SignUp, { email, password: "a fine password", name: "M" }));
  const memberToken = ok(await app.gql<{ logIn: { token: string } }, { e: string }>(LogIn, { e: email })).logIn.token;
  await joinByInvitation(app.gql, owner.token, owner.organizationId, { email, token: memberToken });
  callers = { owner: { token: owner.token }, member: { token: memberToken }, ownKey: { apiKey: owner.apiKey }, otherUser: { token: other.token }, otherKey: { apiKey: other.apiKey }, nobody: {} };
  // Connected naming its project on the auth-url: that is its first resource.
  connectionId = (await connectAccount(app, owner, { connector: "gitlab", account: "alice", provider: gitlab, params: { project_id: "100" } })).id;
  await connectAccount(app, owner, { connector: "todoist", account: "alice", provider: todoist, params: {} });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await gitlab?.close();
  await todoist?.close();
});

describe("GraphQL", () => {
  test.each(everyone)("reading resources as %s", async (who) => {
    expectTenancy(await app.gql(Read, { id: owner.deploymentId }, callers[who]), who, ["owner", "member", "ownKey"], "FORBIDDEN");
  });

  test.each(everyone)("watchResource as %s", async (who) => {
    const result = await app.gql<{ watchResource: { id: string } }, { c: string; p: unknown }>(Watch, { c: connectionId, p: { project_id: `2${everyone.indexOf(who)}` } }, callers[who]);
    expectTenancy(result, who, ["owner", "ownKey"], "NOT_FOUND");
    if (who === "owner") resourceId = result.data!.watchResource.id;
  });

  test.each(everyone.filter((w) => w !== "owner" && w !== "ownKey"))("unwatchResource as %s", async (who) => {
    expectTenancy(await app.gql(Unwatch, { id: resourceId }, callers[who]), who, [], "NOT_FOUND");
  });

  test("the deployment's key unwatches; the first resource came from the auth-url", async () => {
    ok(await app.gql(Unwatch, { id: resourceId }, callers.ownKey));
    const read = ok(await app.gql<{ deployment: { connectedAccounts: { id: string; watching: string; resources: { params: unknown }[] }[] } }, { id: string }>(Read, { id: owner.deploymentId }, callers.owner));
    const alice = read.deployment.connectedAccounts.find((a) => a.id === connectionId)!;
    // The key's own watch (project 22) stays; the owner's (20) is gone.
    expect(alice.resources.map((r) => r.params)).toEqual([{ project_id: "100" }, { project_id: "22" }]);
    expect(read.deployment.connectedAccounts.find((a) => a.id !== connectionId)!.watching).toBe("ACCOUNT");
  });
});

describe("REST", () => {
  test.each([
    ["GET", "/api/v1/connections/gitlab/alice/resources"],
    ["POST", "/api/v1/connections/gitlab/alice/resources"],
    ["DELETE", "/api/v1/connections/gitlab/alice/resources/res_x"],
  ])("another deployment's key: %s %s is 404 connection_not_found", async (method, path) => {
    const response = await fetch(`${app.url}${path}`, { method, headers: { "x-api-key": other.apiKey, "content-type": "application/json" }, ...(method === "POST" ? { body: '{"params":{"project_id":"7"}}' } : {}) });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("connection_not_found");
    expect((await fetch(`${app.url}${path}`, { method, headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(401);
  });

  test("an unknown resource id is 404 resource_not_found", async () => {
    const response = await fetch(`${app.url}/api/v1/connections/gitlab/alice/resources/res_unknown`, { method: "DELETE", headers: { "x-api-key": owner.apiKey } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("resource_not_found");
  });

  test("a connector without resource parameters takes none: 400 invalid_parameter, and its connection watches ACCOUNT with no resources", async () => {
    const response = await fetch(`${app.url}/api/v1/connections/todoist/alice/resources`, {
      method: "POST",
      headers: { "x-api-key": owner.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ params: { project_id: "1" } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe("invalid_parameter");
    const connection = (await (await fetch(`${app.url}/api/v1/connections/todoist/alice`, { headers: { "x-api-key": owner.apiKey } })).json()) as { resources: unknown[]; watching: string };
    expect(connection).toMatchObject({ resources: [], watching: "ACCOUNT" });
    expect(await (await fetch(`${app.url}/api/v1/connections/todoist/alice/resources`, { headers: { "x-api-key": owner.apiKey } })).json()).toEqual([]);
  });
});
