import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Names end up in terminals (`switchyard listen`), pages and logs: none may carry a control
 * character (C0, DEL, C1: ESC starts terminal escape sequences), a bidi override or another
 * invisible format character. Each is BAD_USER_INPUT on the `name` field; ordinary text in any
 * script is fine.
 */

const Q = {
  createOrganization: graphql(`mutation NmCreateOrganization($name: String!) { createOrganization(name: $name) { id name } }`),
  createDeployment: graphql(`mutation NmCreateDeployment($org: ID!, $name: String!) { createDeployment(organizationId: $org, name: $name) { id name } }`),
  signUp: graphql(`mutation NmSignUp($email: String!, $name: String!) { signUp(email: $email, password: "a fine password", name: $name) { user { name } } }`),
  createDataItem: graphql(`mutation NmCreateItem($id: ID!, $name: String!) { createDataItem(deploymentId: $id, name: $name, description: "d") { id name } }`),
  updateDataItem: graphql(`mutation NmUpdateItem($id: ID!, $name: String!) { updateDataItem(id: $id, name: $name) { id name } }`),
};

const hostile: [string, string][] = [
  ["an OSC 8 hyperlink (ESC ] … BEL)", "\u001b]8;;https://evil.example/\u0007Acme\u001b]8;;\u0007"],
  ["a colour sequence (ESC [)", "Acme\u001b[31m"],
  ["a C1 CSI", "Acme\u009b2J"],
  ["DEL", "Ac\u007fme"],
  ["a trailing newline", "Acme\n"],
  ["a carriage return", "Paid\rUnpaid"],
  ["a bidi override", "Acme\u202Egnp.exe"],
  ["a bidi isolate", "Acme\u2066x\u2069"],
  ["a zero-width joiner", "Ac\u200Dme"],
];

let app: TestApp;
let owner: Operator;
let itemId: string;
beforeAll(async () => {
  app = await startTestApp();
  owner = await createOperator(app, "Names");
  itemId = ok(await app.gql(Q.createDataItem, { id: owner.deploymentId, name: "plain" }, { token: owner.token })).createDataItem.id;
});
afterAll(() => app.close());

let n = 0;
const operations: [string, (name: string) => ReturnType<TestApp["gql"]>][] = [
  ["createOrganization", (name) => app.gql(Q.createOrganization, { name }, { token: owner.token })],
  ["createDeployment", (name) => app.gql(Q.createDeployment, { org: owner.organizationId, name }, { token: owner.token })],
  ["signUp (the user's name)", (name) => app.gql(Q.signUp, { email: `names-${++n}@example.com`, name })],
  ["createDataItem", (name) => app.gql(Q.createDataItem, { id: owner.deploymentId, name }, { token: owner.token })],
  ["updateDataItem", (name) => app.gql(Q.updateDataItem, { id: itemId, name }, { token: owner.token })],
];

describe.each(operations)("%s", (_operation, run) => {
  test.each(hostile)("refuses %s with BAD_USER_INPUT on name", async (_what, name) => {
    const result = await run(name);
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    const fields = result.errors?.[0].extensions?.fields as { field: string }[];
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.every((f) => f.field === "name")).toBe(true);
  });
});

test("ordinary names in any script, with spaces and emoji, are kept", async () => {
  const name = "Café Zürich — 東京 🚀";
  expect(ok(await app.gql(Q.createOrganization, { name }, { token: owner.token })).createOrganization.name).toBe(name);
  expect(ok(await app.gql(Q.signUp, { email: "names-ok@example.com", name })).signUp.user.name).toBe(name);
  expect(ok(await app.gql(Q.createDataItem, { id: owner.deploymentId, name }, { token: owner.token })).createDataItem.name).toBe(name);
});
