import { randomBytes } from "node:crypto";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { MAX_QUERY_COST, queryCost } from "../../src/graphql/limits.ts";
import { schema } from "../../src/graphql/schema.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { allDocuments, largestVariables } from "./documents.ts";

let app: TestApp;
let ada: Operator;
beforeAll(async () => {
  app = await startTestApp();
  ada = await createOperator(app, "Ada");
});
afterAll(() => app?.close());

const aliases = (n: number, field: (i: number) => string) => Array.from({ length: n }, (_, i) => field(i)).join(" ");

describe("the cost limit counts list sizes and refuses before anything runs", () => {
  test("20 aliases of deliveries(limit: 100) with their events' deliveries and attempt logs: BAD_USER_INPUT with the cost", async () => {
    const query = `{ deployment(id: "${ada.deploymentId}") { ${aliases(20, (i) => `a${i}: deliveries(limit: 100) { id event { id deliveries { id attemptLog { number statusCode error } } } }`)} } }`;
    const result = await app.gql(query, {}, { token: ada.token });
    expect(result.data ?? null).toBeNull();
    expect(result.errors![0].extensions).toMatchObject({ code: "BAD_USER_INPUT", maxCost: MAX_QUERY_COST });
    expect(result.errors![0].extensions!.cost as number).toBeGreaterThan(MAX_QUERY_COST);
    expect(result.errors![0].message).toMatch(/too large.*limit\/first/);
  });

  test("20 aliases of dataItems(limit: 100), literally or through a variable, are refused; a single page is served", async () => {
    const literal = `{ deployment(id: "${ada.deploymentId}") { ${aliases(20, (i) => `a${i}: dataItems(limit: 100) { nodes { id name description } }`)} } }`;
    expect((await app.gql(literal, {}, { apiKey: ada.apiKey })).errors![0].extensions!.code).toBe("BAD_USER_INPUT");

    const byVariable = `query($n: Int) { deployment(id: "${ada.deploymentId}") { ${aliases(20, (i) => `a${i}: dataItems(limit: $n) { nodes { id name description } }`)} } }`;
    expect((await app.gql(byVariable, { n: 100 }, { apiKey: ada.apiKey })).errors![0].extensions!.code).toBe("BAD_USER_INPUT");
    // The same document with small pages is cheap: the variables decide.
    expect((await app.gql(byVariable, { n: 5 }, { apiKey: ada.apiKey })).errors).toBeUndefined();

    const onePage = await app.gql(`{ deployment(id: "${ada.deploymentId}") { dataItems(limit: 100) { totalCount nodes { id name description } } } }`, {}, { apiKey: ada.apiKey });
    expect(onePage.errors).toBeUndefined();
  });

  test("a document is judged again for each list size and @include, and variables that do not coerce never let a later request skip the check", async () => {
    const pages = aliases(19, (i) => `b${i}: dataItems(limit: $n) @include(if: $all) { nodes { id name description } }`);
    const document = `query($id: ID!, $n: Int, $all: Boolean!) { deployment(id: $id) { a: dataItems(limit: 5) { nodes { id } } ${pages} } }`;
    const ask = (variables: Record<string, unknown>) => app.gql(document, variables, { apiKey: ada.apiKey });
    const id = ada.deploymentId;
    expect((await ask({ id, n: 5, all: true })).errors).toBeUndefined();
    expect((await ask({ id, n: 100, all: true })).errors![0].extensions!.code).toBe("BAD_USER_INPUT");
    expect((await ask({ id, n: 100, all: false })).errors).toBeUndefined();
    expect((await ask({ id, n: 5, all: true })).errors).toBeUndefined();
    // $id missing: the variables do not coerce, so no cost is known; the same sizes with $id are still refused.
    expect((await ask({ n: 99, all: true })).errors![0].message).toMatch(/\$id/);
    const refused = await ask({ id, n: 99, all: true });
    expect(refused.errors![0].extensions).toMatchObject({ code: "BAD_USER_INPUT", maxCost: MAX_QUERY_COST });
  });

  test("twenty aliases of eventLog(first: 1) or deliveryStats — one tenant stalling the shared database — are refused before anything runs", async () => {
    // A bad cursor in every alias: had anything run, its error would be the answer.
    const logs = `{ deployment(id: "${ada.deploymentId}") { ${aliases(20, (i) => `a${i}: eventLog(first: 1, filter: { status: FAILED }, after: "x") { nodes { id } }`)} } }`;
    const stats = `{ deployment(id: "${ada.deploymentId}") { ${aliases(20, (i) => `a${i}: deliveryStats(hours: 24) { successRate }`)} } }`;
    const mixed = `{ deployment(id: "${ada.deploymentId}") { ${aliases(10, (i) => `l${i}: eventLog(first: 1) { nodes { id } }`)} ${aliases(10, (i) => `s${i}: deliveryStats { failed }`)} } }`;
    for (const query of [logs, stats, mixed]) {
      for (const caller of [{ token: ada.token }, { apiKey: ada.apiKey }]) {
        const result = await app.gql(query, {}, caller);
        expect(result.data ?? null).toBeNull();
        expect(result.errors).toHaveLength(1);
        expect(result.errors![0].extensions).toMatchObject({ code: "BAD_USER_INPUT", maxCost: MAX_QUERY_COST });
        expect(result.errors![0].message).toMatch(/too large/);
      }
    }
    // One of each, as the console's pages ask, is served.
    const page = await app.gql(`{ deployment(id: "${ada.deploymentId}") { eventLog(first: 50, filter: { status: FAILED }) { nodes { id } } deliveryStats(hours: 168) { failed } } }`, {}, { token: ada.token });
    expect(page.errors).toBeUndefined();
  });

  test("deliveryStats covers at most a week: hours above 168 is BAD_USER_INPUT", async () => {
    const stats = (hours: number) => app.gql(`query($id: ID!, $hours: Int) { deployment(id: $id) { deliveryStats(hours: $hours) { hours } } }`, { id: ada.deploymentId, hours }, { token: ada.token });
    expect((await stats(168)).data).toEqual({ deployment: { deliveryStats: { hours: 168 } } });
    for (const hours of [169, 744]) {
      const result = await stats(hours);
      expect(result.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
      expect(result.errors![0].message).toMatch(/hours: must be an integer from 1 to 168/);
    }
  });

  test("an over-budget mutation does not run at all", async () => {
    const secret = async () =>
      ((await app.gql(`{ deployment(id: "${ada.deploymentId}") { signingSecret } }`, {}, { token: ada.token })).data as { deployment: { signingSecret: string } }).deployment.signingSecret;
    const before = await secret();
    const mutation = `mutation { rotateSigningSecret(deploymentId: "${ada.deploymentId}") { organization { deployments { deliveries(limit: 100) { id event { id deliveries { id attemptLog { number } } } } } } } }`;
    const result = await app.gql(mutation, {}, { token: ada.token });
    expect(result.errors![0].extensions!.code).toBe("BAD_USER_INPUT");
    expect(await secret()).toBe(before);
  });

  test("a negative limit cannot make the cost negative", () => {
    const docs = `{ a: deployment(id: "1") { deliveries(limit: -1000000) { id event { id deliveries { id attemptLog { number } } } } } }`;
    expect(queryCost(schema, parse(docs))!).toBeGreaterThan(0);
  });

  test("every query of the console and of the tests is under the budget, with page sizes at their maximum", () => {
    const costs = allDocuments().map(({ source, name, document }) => ({ source, name, cost: queryCost(schema, document, undefined, largestVariables(schema, document)) }));
    expect(costs.length).toBeGreaterThan(50);
    expect(costs.filter((c) => c.cost === undefined)).toEqual([]);
    expect(costs.filter((c) => c.cost! > MAX_QUERY_COST)).toEqual([]);
  });

  test("depth and alias limits answer with the same code", async () => {
    const deep = `{ ${"organizations { deployments { organization { ".repeat(5)} id ${"} } } ".repeat(5)} }`;
    const tooDeep = await app.gql(deep, {}, { token: ada.token });
    expect(tooDeep.errors![0]).toMatchObject({ message: expect.stringMatching(/depth/i), extensions: { code: "BAD_USER_INPUT" } });
    const tooMany = await app.gql(`{ ${aliases(30, (i) => `a${i}: viewer { id }`)} }`);
    expect(tooMany.errors![0]).toMatchObject({ message: expect.stringMatching(/alias/i), extensions: { code: "BAD_USER_INPUT" } });
  });
});

describe("introspection and GraphiQL", () => {
  let closed: TestApp;
  beforeAll(async () => {
    closed = await startTestApp({ GRAPHQL_INTROSPECTION: "false" });
  });
  afterAll(() => closed?.close());
  const introspect = (target: TestApp) => target.gql("{ __schema { queryType { name } } }");
  const graphiql = (target: TestApp) => fetch(`${target.url}/graphql`, { headers: { accept: "text/html" } });

  test("on by default in development and test, off by default in production, GRAPHQL_INTROSPECTION decides", () => {
    const key = randomBytes(32).toString("base64");
    expect(loadConfig({ ENCRYPTION_KEY: key }).graphqlIntrospection).toBe(true);
    expect(loadConfig({ ENCRYPTION_KEY: key, NODE_ENV: "test" }).graphqlIntrospection).toBe(true);
    expect(loadConfig({ ENCRYPTION_KEY: key, NODE_ENV: "production" }).graphqlIntrospection).toBe(false);
    expect(loadConfig({ ENCRYPTION_KEY: key, NODE_ENV: "production", GRAPHQL_INTROSPECTION: "true" }).graphqlIntrospection).toBe(true);
    expect(loadConfig({ ENCRYPTION_KEY: key, GRAPHQL_INTROSPECTION: "false" }).graphqlIntrospection).toBe(false);
    expect(() => loadConfig({ ENCRYPTION_KEY: key, GRAPHQL_INTROSPECTION: "maybe" })).toThrow(/GRAPHQL_INTROSPECTION/);
  });

  test("when on, __schema answers and GraphiQL is served", async () => {
    expect((await introspect(app)).data).toEqual({ __schema: { queryType: { name: "Query" } } });
    const page = await graphiql(app);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
  });

  test("when off, __schema is a validation error and there is no GraphiQL; ordinary queries still work", async () => {
    const result = await introspect(closed);
    expect(result.data ?? null).toBeNull();
    expect(result.errors![0].message).toMatch(/introspection/i);
    expect((await graphiql(closed)).headers.get("content-type") ?? "").not.toMatch(/text\/html/);
    expect((await closed.gql("{ connectors { name } }")).errors).toBeUndefined();
  });
});

test("a malformed JSON body is a 400 without the parser's internals (extensions.originalError)", async () => {
  const response = await fetch(`${app.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"query": ' });
  expect(response.status).toBe(400);
  const body = await response.json();
  expect(body.errors[0].message).toMatch(/JSON/);
  expect(body.errors[0].extensions).not.toHaveProperty("originalError");
  expect(JSON.stringify(body)).not.toMatch(/SyntaxError|position/);
});
