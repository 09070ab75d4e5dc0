import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { everyone, expectTenancy, type Who } from "../helpers/tenancy.ts";
import { type Caller, type GraphQLResult, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Every foundation operation, run as each kind of caller, with who is let in. Operations added by
 * later capabilities carry their own tables beside their tests.
 */

const Q = {
  organization: graphql(`query TOrganization($id: ID!) { organization(id: $id) { id name } }`),
  orgDeployments: graphql(`query TOrgDeployments($id: ID!) { deployment(id: $id) { organization { deployments { id } } } }`),
  orgMembers: graphql(`query TOrgMembers($id: ID!) { organization(id: $id) { members { role user { email } } } }`),
  deployment: graphql(`query TDeployment($id: ID!) { deployment(id: $id) { id name apiKey { prefix } } }`),
  signingSecret: graphql(`query TSigningSecret($id: ID!) { deployment(id: $id) { signingSecret } }`),
  dataItems: graphql(`query TDataItems($id: ID!) { deployment(id: $id) { dataItems { totalCount } } }`),
  createOrganization: graphql(`mutation TCreateOrganization($name: String!) { createOrganization(name: $name) { id } }`),
  createDeployment: graphql(`mutation TCreateDeployment($org: ID!, $name: String!) { createDeployment(organizationId: $org, name: $name) { id } }`),
  generateApiKey: graphql(`mutation TGenerateApiKey($id: ID!) { generateApiKey(deploymentId: $id) { key { prefix } } }`),
  rotateSigningSecret: graphql(`mutation TRotate($id: ID!) { rotateSigningSecret(deploymentId: $id) { id } }`),
  createDataItem: graphql(`mutation TCreateItem($id: ID!) { createDataItem(deploymentId: $id, name: "n", description: "d") { id } }`),
  updateDataItem: graphql(`mutation TUpdateItem($id: ID!) { updateDataItem(id: $id, name: "renamed") { id } }`),
  deleteDataItem: graphql(`mutation TDeleteItem($id: ID!) { deleteDataItem(id: $id) { id } }`),
  addMember: graphql(`mutation TAddMember($org: ID!, $email: String!) { addMember(organizationId: $org, email: $email, role: MEMBER) { id } }`),
  logIn: graphql(`mutation TLogIn($e: String!) { logIn(email: $e, password: "a fine password") { token } }`),
};

let app: TestApp;
let owner: Operator;
let other: Operator;
let callers: Record<Who, Caller>;

async function newUserEmail(): Promise<string> {
  const email = `u-${randomBytes(4).toString("hex")}@example.com`;
  ok(await app.gql(SignUp, { email, password: "a fine password", name: "U" }));
  return email;
}

beforeAll(async () => {
  app = await startTestApp();
  owner = await createOperator(app, "Owner");
  other = await createOperator(app, "Other");
  const memberEmail = await newUserEmail();
  const memberToken = ok(await app.gql(Q.logIn, { e: memberEmail })).logIn.token;
  await joinByInvitation(app.gql, owner.token, owner.organizationId, { email: memberEmail, token: memberToken });
  callers = {
    owner: { token: owner.token },
    member: { token: memberToken },
    ownKey: { apiKey: owner.apiKey },
    otherUser: { token: other.token },
    otherKey: { apiKey: other.apiKey },
    nobody: {},
  };
});
afterAll(() => app.close());

const newItem = async () =>
  ok(await app.gql(Q.createDataItem, { id: owner.deploymentId }, { token: owner.token })).createDataItem.id;

// [operation, run, who gets in; everyone else gets `denied` (UNAUTHENTICATED for nobody)]
type Row = [string, (caller: Caller) => Promise<GraphQLResult<unknown>>, Who[], "FORBIDDEN" | "NOT_FOUND"];
const rows: Row[] = [
  ["organization(id)", (c) => app.gql(Q.organization, { id: owner.organizationId }, c), ["owner", "member"], "FORBIDDEN"],
  ["organization.members", (c) => app.gql(Q.orgMembers, { id: owner.organizationId }, c), ["owner", "member"], "FORBIDDEN"],
  ["deployment.organization.deployments", (c) => app.gql(Q.orgDeployments, { id: owner.deploymentId }, c), ["owner", "member"], "FORBIDDEN"],
  ["deployment(id)", (c) => app.gql(Q.deployment, { id: owner.deploymentId }, c), ["owner", "member", "ownKey"], "FORBIDDEN"],
  ["deployment.signingSecret", (c) => app.gql(Q.signingSecret, { id: owner.deploymentId }, c), ["owner", "ownKey"], "FORBIDDEN"],
  ["deployment.dataItems", (c) => app.gql(Q.dataItems, { id: owner.deploymentId }, c), ["owner", "member", "ownKey"], "FORBIDDEN"],
  ["createOrganization", (c) => app.gql(Q.createOrganization, { name: "New org" }, c), ["owner", "member", "otherUser"], "FORBIDDEN"],
  [
    "createDeployment",
    (c) => app.gql(Q.createDeployment, { org: owner.organizationId, name: `d-${randomBytes(3).toString("hex")}` }, c),
    ["owner"],
    "FORBIDDEN",
  ],
  ["generateApiKey (production)", (c) => app.gql(Q.generateApiKey, { id: owner.productionDeploymentId }, c), ["owner"], "FORBIDDEN"],
  ["rotateSigningSecret", (c) => app.gql(Q.rotateSigningSecret, { id: owner.deploymentId }, c), ["owner", "ownKey"], "FORBIDDEN"],
  ["createDataItem", (c) => app.gql(Q.createDataItem, { id: owner.deploymentId }, c), ["owner", "ownKey"], "FORBIDDEN"],
  ["updateDataItem", async (c) => app.gql(Q.updateDataItem, { id: await newItem() }, c), ["owner", "ownKey"], "NOT_FOUND"],
  ["deleteDataItem", async (c) => app.gql(Q.deleteDataItem, { id: await newItem() }, c), ["owner", "ownKey"], "NOT_FOUND"],
  // Deprecated; the same as inviteMember (test/tenancy/invitations.test.ts).
  ["addMember", async (c) => app.gql(Q.addMember, { org: owner.organizationId, email: await newUserEmail() }, c), ["owner"], "FORBIDDEN"],
];

describe.each(rows)("%s", (_name, run, allowed, denied) => {
  test.each(everyone)("as %s", async (who) => {
    expectTenancy(await run(callers[who]), who, allowed, denied);
  });
});

test("an API key lists no organizations, and a user lists only their own", async () => {
  const List = graphql(`query TOrganizations { organizations { id } }`);
  expect(ok(await app.gql(List, {}, callers.ownKey)).organizations).toEqual([]);
  expect(ok(await app.gql(List, {}, callers.nobody)).organizations).toEqual([]);
  const mine = ok(await app.gql(List, {}, callers.otherUser)).organizations.map((o) => o.id);
  expect(mine).toContain(other.organizationId);
  expect(mine).not.toContain(owner.organizationId);
});

test("REST: /api/data takes API keys only", async () => {
  const status = async (headers: Record<string, string>) => (await fetch(`${app.url}/api/data`, { headers })).status;
  expect(await status({ "x-api-key": owner.apiKey })).toBe(200);
  expect(await status({ authorization: `Bearer ${owner.token}` })).toBe(401);
  expect(await status({})).toBe(401);
});
