import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/index.ts";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { createOperator, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { everyone, expectTenancy, type Who } from "../helpers/tenancy.ts";
import { type Caller, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/** Connections, as each kind of caller: who may list, read and delete them, on both surfaces. */

const List = graphql(`query TConnections($id: ID!) { deployment(id: $id) { connections { nodes { id } } } }`);
const Disconnect = graphql(`mutation TDisconnect($id: ID!) { disconnectAccount(id: $id) { id } }`);
const LogIn = graphql(`mutation TConnectionsLogIn($e: String!) { logIn(email: $e, password: "a fine password") { token } }`);

let app: TestApp;
let github: FakeGitHub;
let owner: Operator;
let other: Operator;
let callers: Record<Who, Caller>;
let connectionId: string;

beforeAll(async () => {
  github = await startFakeGitHub();
  app = await startTestApp(github.env());
  [owner, other] = await Promise.all([createOperator(app, "Owner"), createOperator(app, "Other")]);
  const email = `member-${Date.now()}@example.com`;
  ok(await app.gql(SignUp, { email, password: "a fine password", name: "M" }));
  const memberToken = ok(await app.gql(LogIn, { e: email })).logIn.token;
  await joinByInvitation(app.gql, owner.token, owner.organizationId, { email, token: memberToken });
  callers = { owner: { token: owner.token }, member: { token: memberToken }, ownKey: { apiKey: owner.apiKey }, otherUser: { token: other.token }, otherKey: { apiKey: other.apiKey }, nobody: {} };
  connectionId = (await connectAccount(app, owner, { connector: "github", account: "alice", provider: github })).id;
}, 60_000);
afterAll(async () => {
  await app?.close();
  await github?.close();
});

describe("deployment.connections", () => {
  test.each(everyone)("as %s", async (who) => {
    expectTenancy(await app.gql(List, { id: owner.deploymentId }, callers[who]), who, ["owner", "member", "ownKey"], "FORBIDDEN");
  });
});

describe("REST: another deployment's key sees 404 everywhere, and nothing happens", () => {
  test.each([
    ["GET", "/api/v1/connections/github/alice"],
    ["DELETE", "/api/v1/connections/github/alice"],
  ])("%s %s", async (method, path) => {
    const response = await fetch(`${app.url}${path}`, { method, headers: { "x-api-key": other.apiKey } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe("connection_not_found");
    expect((await fetch(`${app.url}${path}`, { method })).status).toBe(401);
    expect((await fetch(`${app.url}${path}`, { method, headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(401);
  });

  test("the other key's list is its own (empty)", async () => {
    expect(await (await fetch(`${app.url}/api/v1/connections`, { headers: { "x-api-key": other.apiKey } })).json()).toEqual([]);
    expect(github.revocations).toEqual([]);
  });
});

// Last: the allowed callers disconnect it (again: nothing more happens).
describe("disconnectAccount", () => {
  test.each(everyone)("as %s", async (who) => {
    expectTenancy(await app.gql(Disconnect, { id: connectionId }, callers[who]), who, ["owner", "ownKey"], "NOT_FOUND");
  });
});
