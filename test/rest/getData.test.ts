import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { graphql } from "../generated/gql.ts";
import { createOperator, GenerateApiKey, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const CreateDataItem = graphql(`
  mutation CreateDataItem($deploymentId: ID!, $name: String!, $description: String!) {
    createDataItem(deploymentId: $deploymentId, name: $name, description: $description) { id name description }
  }
`);

let app: TestApp;
let ada: Operator;
let ids: number[];

beforeAll(async () => {
  app = await startTestApp();
  ada = await createOperator(app, "Ada");
  ids = [];
  for (let i = 1; i <= 25; i++) {
    const { createDataItem } = ok(
      await app.gql(CreateDataItem, { deploymentId: ada.deploymentId, name: `Item ${i}`, description: `The item numbered ${i}` }, { token: ada.token }),
    );
    ids.push(Number(createDataItem.id));
  }
});
afterAll(() => app.close());

const get = (path: string, apiKey?: string) => fetch(`${app.url}${path}`, { headers: apiKey ? { "x-api-key": apiKey } : {} });

describe("GET /api/data", () => {
  test("the first page by default: 10 items ordered by id, the numbers in headers", async () => {
    const response = await get("/api/data", ada.apiKey);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toEqual(ids.slice(0, 10).map((id, i) => ({ id, name: `Item ${i + 1}`, description: `The item numbered ${i + 1}` })));
    expect(response.headers.get("x-total-count")).toBe("25");
    expect(response.headers.get("x-offset")).toBe("0");
    expect(response.headers.get("x-limit")).toBe("10");
    expect(response.headers.get("link")).toBe(
      [
        `<${app.url}/api/data?offset=0&limit=10>; rel="first"`,
        `<${app.url}/api/data?offset=10&limit=10>; rel="next"`,
        `<${app.url}/api/data?offset=20&limit=10>; rel="last"`,
      ].join(", "),
    );
  });

  test("following next links visits every item once, in order", async () => {
    const seen: number[] = [];
    let next: string | undefined = `/api/data?offset=0&limit=7`;
    while (next) {
      const response = await get(next, ada.apiKey);
      seen.push(...((await response.json()) as { id: number }[]).map((item) => item.id));
      const link = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "");
      next = link ? link[1].replace(app.url, "") : undefined;
    }
    expect(seen).toEqual(ids);
  });

  test("a middle page links to all four neighbours", async () => {
    const response = await get("/api/data?offset=10&limit=5", ada.apiKey);
    expect(((await response.json()) as { id: number }[]).map((item) => item.id)).toEqual(ids.slice(10, 15));
    expect(response.headers.get("link")).toContain(`<${app.url}/api/data?offset=5&limit=5>; rel="prev"`);
    expect(response.headers.get("link")).toContain(`<${app.url}/api/data?offset=15&limit=5>; rel="next"`);
    expect(response.headers.get("link")).toContain(`<${app.url}/api/data?offset=20&limit=5>; rel="last"`);
  });

  test("an offset past the end is an empty page, not an error", async () => {
    for (const offset of [25, 1000, 999999999999]) {
      const response = await get(`/api/data?offset=${offset}`, ada.apiKey);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
      expect(response.headers.get("x-total-count")).toBe("25");
    }
  });

  test("envelope=true wraps the page with its pagination", async () => {
    const response = await get("/api/data?offset=20&limit=10&envelope=true", ada.apiKey);
    expect(await response.json()).toEqual({
      data: ids.slice(20).map((id, i) => ({ id, name: `Item ${21 + i}`, description: `The item numbered ${21 + i}` })),
      pagination: { total: 25, offset: 20, limit: 10 },
    });
  });

  test.each([
    ["offset=-1"],
    ["offset=abc"],
    ["offset=1.5"],
    ["offset="],
    ["limit=0"],
    ["limit=101"],
    ["limit=-5"],
    ["limit=ten"],
    ["limit=1e2"],
    ["limit=10&limit=20"],
    ["envelope=yes"],
  ])("?%s is 400 invalid_parameter as problem+json", async (query) => {
    const response = await get(`/api/data?${query}`, ada.apiKey);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const problem = await response.json();
    expect(problem).toMatchObject({ status: 400, code: "invalid_parameter", title: "Bad Request" });
    expect(typeof problem.type).toBe("string");
    expect(typeof problem.detail).toBe("string");
  });

  test("limit=100 and limit=1 are the edges that work", async () => {
    expect(((await (await get("/api/data?limit=100", ada.apiKey)).json()) as unknown[]).length).toBe(25);
    expect(((await (await get("/api/data?limit=1", ada.apiKey)).json()) as unknown[]).length).toBe(1);
  });

  test("without a key: 401 missing_api_key; with a wrong one: 401 invalid_api_key", async () => {
    const missing = await get("/api/data");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: "missing_api_key", status: 401 });
    for (const key of ["nope", `sy_test_${"x".repeat(43)}`, ada.apiKey.slice(0, -1)]) {
      const invalid = await get("/api/data", key);
      expect(invalid.status).toBe(401);
      expect(await invalid.json()).toMatchObject({ code: "invalid_api_key" });
    }
  });

  test("a key lists its own deployment's items only", async () => {
    const grace = await createOperator(app, "Grace");
    const response = await get("/api/data", grace.apiKey);
    expect(await response.json()).toEqual([]);
    expect(response.headers.get("x-total-count")).toBe("0");
    expect(response.headers.get("link")).toBe(
      `<${app.url}/api/data?offset=0&limit=10>; rel="first", <${app.url}/api/data?offset=0&limit=10>; rel="last"`,
    );
  });

  test("a regenerated key replaces the old one at once", async () => {
    const operator = await createOperator(app, "Rota");
    const { generateApiKey } = ok(await app.gql(GenerateApiKey, { deploymentId: operator.deploymentId }, { token: operator.token }));
    expect((await get("/api/data", operator.apiKey)).status).toBe(401);
    expect((await get("/api/data", generateApiKey.apiKey)).status).toBe(200);
  });

  test("Content-Type: application/json on a GET is accepted and ignored", async () => {
    const response = await fetch(`${app.url}/api/data?limit=2`, { headers: { "x-api-key": ada.apiKey, "content-type": "application/json" } });
    expect(response.status).toBe(200);
  });
});

describe("rate limits", () => {
  test("past the per-key budget: 429 rate_limited with Retry-After", async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const operator = await createOperator(limited, "Busy");
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${limited.url}/api/data`, { headers: { "x-api-key": operator.apiKey } })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const response = await fetch(`${limited.url}/api/data`, { headers: { "x-api-key": operator.apiKey } });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await response.json()).toMatchObject({ code: "rate_limited", status: 429 });
    } finally {
      await limited.close();
    }
  });
});
