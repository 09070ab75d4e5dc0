import { afterAll, beforeAll, expect, test } from "vitest";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { graphql } from "../generated/gql.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const Create = graphql(`
  mutation DICreate($d: ID!, $name: String!, $description: String!) {
    createDataItem(deploymentId: $d, name: $name, description: $description) { id name description }
  }
`);
const Update = graphql(`
  mutation DIUpdate($id: ID!, $name: String, $description: String) { updateDataItem(id: $id, name: $name, description: $description) { id name description } }
`);
const Delete = graphql(`mutation DIDelete($id: ID!) { deleteDataItem(id: $id) { id name } }`);
const Page = graphql(`
  query DIPage($d: ID!, $offset: Int, $limit: Int) {
    deployment(id: $d) {
      dataItems(offset: $offset, limit: $limit) {
        totalCount offset limit
        nodes { id name }
        edges { cursor node { id } }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`);

let app: TestApp;
let ada: Operator;
beforeAll(async () => {
  app = await startTestApp();
  ada = await createOperator(app);
});
afterAll(() => app.close());

const restPage = async (query: string) => {
  const response = await fetch(`${app.url}/api/data?${query}`, { headers: { "x-api-key": ada.apiKey } });
  return { total: Number(response.headers.get("x-total-count")), items: (await response.json()) as { id: number; name: string }[] };
};

test("create, rename and delete items; pages stay dense and in id order after deletes", async () => {
  const ids: string[] = [];
  for (const name of ["a", "b", "c", "d", "e", "f"]) {
    ids.push(ok(await app.gql(Create, { d: ada.deploymentId, name, description: `about ${name}` }, { token: ada.token })).createDataItem.id);
  }
  expect(ok(await app.gql(Update, { id: ids[1], name: "B" }, { token: ada.token })).updateDataItem).toEqual({ id: ids[1], name: "B", description: "about b" });

  ok(await app.gql(Delete, { id: ids[2] }, { token: ada.token }));
  ok(await app.gql(Delete, { id: ids[0] }, { token: ada.token }));
  const remaining = ["B", "d", "e", "f"];
  expect(await restPage("limit=10")).toEqual({ total: 4, items: remaining.map((name, i) => expect.objectContaining({ id: Number([ids[1], ids[3], ids[4], ids[5]][i]), name })) });
  expect((await restPage("offset=2&limit=2")).items.map((item) => item.name)).toEqual(["e", "f"]);
  expect((await restPage("offset=1&limit=1")).items.map((item) => item.name)).toEqual(["d"]);

  ok(await app.gql(Create, { d: ada.deploymentId, name: "g", description: "" }, { token: ada.token }));
  expect((await restPage("offset=4&limit=5")).items.map((item) => item.name)).toEqual(["g"]);
  expect((await restPage("")).total).toBe(5);
});

test("the GraphQL connection reports the same page as REST, with cursors and page info", async () => {
  const { deployment } = ok(await app.gql(Page, { d: ada.deploymentId, offset: 1, limit: 2 }, { apiKey: ada.apiKey }));
  const connection = deployment!.dataItems;
  const rest = await restPage("offset=1&limit=2");
  expect(connection.totalCount).toBe(rest.total);
  expect(connection.nodes.map((n) => Number(n.id))).toEqual(rest.items.map((i) => i.id));
  expect(connection.edges.map((e) => e.node.id)).toEqual(connection.nodes.map((n) => n.id));
  expect(connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  expect(connection.pageInfo.startCursor).toBe(connection.edges[0].cursor);
  expect(connection.pageInfo.endCursor).toBe(connection.edges[1].cursor);

  const defaults = ok(await app.gql(Page, { d: ada.deploymentId }, { apiKey: ada.apiKey })).deployment!.dataItems;
  expect({ offset: defaults.offset, limit: defaults.limit }).toEqual({ offset: 0, limit: 10 });
  expect(defaults.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
});

test.each([
  [{ name: "", description: "x" }, "name"],
  [{ name: "x".repeat(201), description: "x" }, "name"],
  [{ name: "ok", description: "x".repeat(5001) }, "description"],
])("bad item %#: BAD_USER_INPUT naming %s, nothing stored", async (input, field) => {
  const before = await restPage("");
  const result = await app.gql(Create, { d: ada.deploymentId, ...input }, { token: ada.token });
  expect(errorCode(result)).toBe("BAD_USER_INPUT");
  expect((result.errors?.[0].extensions?.fields as { field: string }[])[0].field).toBe(field);
  expect((await restPage("")).total).toBe(before.total);
});

test("updating or deleting an item that does not exist is NOT_FOUND", async () => {
  expect(errorCode(await app.gql(Update, { id: "999999", name: "x" }, { token: ada.token }))).toBe("NOT_FOUND");
  expect(errorCode(await app.gql(Delete, { id: "not-a-number" }, { token: ada.token }))).toBe("NOT_FOUND");
});
