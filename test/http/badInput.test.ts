import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let ada: Operator;
beforeAll(async () => {
  app = await startTestApp();
  ada = await createOperator(app);
});
afterAll(() => app.close());

const postGraphQL = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

/** Nothing a client sends may come back as a stack trace, SQL or an internal path. */
function expectNoLeak(text: string) {
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(text).not.toMatch(/select |insert into|\bfrom "?[a-z_]+"?\s+where/i);
  expect(text).not.toContain("/work/");
  expect(text).not.toContain("node_modules");
}

describe("GraphQL over HTTP", () => {
  test("malformed JSON is a 400 with a message, not a crash", async () => {
    const response = await postGraphQL("{not json");
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(JSON.parse(text).errors[0].message).toMatch(/JSON/);
    expectNoLeak(text);
  });

  test("a body over 1 MiB is refused with 413 before it is parsed", async () => {
    const huge = JSON.stringify({ query: "{ viewer { id } }", variables: { pad: "x".repeat(1024 * 1024) } });
    const response = await postGraphQL(huge);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "payload_too_large", status: 413 });
  });

  test("wrong variable types and unknown fields are validation errors", async () => {
    const wrongType = await postGraphQL(
      JSON.stringify({ query: "query($id: ID!) { deployment(id: $id) { id } }", variables: { id: { nested: true } } }),
      { "x-api-key": ada.apiKey },
    );
    expect(wrongType.status).toBe(400);
    const wrong = await wrongType.json();
    expect(wrong.errors[0].message).toMatch(/Variable "\$id"/);

    const unknownField = await (await postGraphQL(JSON.stringify({ query: "{ viewer { id password } }" }))).json();
    expect(unknownField.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");

    const unknownArg = await (
      await postGraphQL(JSON.stringify({ query: `mutation { createOrganization(name: "x", evil: true) { id } }` }), { authorization: `Bearer ${ada.token}` })
    ).json();
    expect(unknownArg.errors[0].extensions.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });

  test("a query nested too deep or with too many aliases is refused", async () => {
    const deep = `{ viewer { id } ${"a: organizations { deployments { organization { deployments { organization { deployments { organization { deployments { organization { deployments { organization { deployments { id } } } } } } } } } } } }"} }`;
    const response = await (await postGraphQL(JSON.stringify({ query: deep }), { authorization: `Bearer ${ada.token}` })).json();
    expect(response.errors[0].message).toMatch(/depth/i);

    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: viewer { id }`).join(" ");
    const many = await (await postGraphQL(JSON.stringify({ query: `{ ${aliases} }` }))).json();
    expect(many.errors[0].message).toMatch(/alias/i);
  });

  test("an invalid API key is UNAUTHENTICATED, not a silent anonymous request", async () => {
    const response = await (await postGraphQL(JSON.stringify({ query: "{ viewer { id } }" }), { "x-api-key": "sy_test_wrong" })).json();
    expect(response.errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  test("offset/limit on dataItems are validated like the REST listing", async () => {
    for (const [offset, limit] of [[-1, 10], [0, 0], [0, 101]]) {
      const response = await (
        await postGraphQL(
          JSON.stringify({
            query: "query($id: ID!, $o: Int, $l: Int) { deployment(id: $id) { dataItems(offset: $o, limit: $l) { totalCount } } }",
            variables: { id: ada.deploymentId, o: offset, l: limit },
          }),
          { "x-api-key": ada.apiKey },
        )
      ).json();
      expect(response.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    }
  });
});

describe("a NUL character or an out-of-range id is the caller's mistake, never a 500", () => {
  const gqlAs = async (query: string, variables: Record<string, unknown>, headers: Record<string, string>) => {
    const response = await postGraphQL(JSON.stringify({ query, variables }), headers);
    const text = await response.text();
    expectNoLeak(text);
    expect(response.status).toBeLessThan(500);
    return JSON.parse(text) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };
  };

  test("in a GraphQL string or ID (or an unpaired surrogate), as a variable or a literal: BAD_USER_INPUT before anything runs", async () => {
    const logIn = "mutation($email: String!) { logIn(email: $email, password: \"irrelevant\") { token } }";
    for (const result of [
      await gqlAs(logIn, { email: "a\u0000@x.com" }, {}),
      await gqlAs('mutation { logIn(email: "a\\u0000@x.com", password: "x") { token } }', {}, {}),
      await gqlAs("query($id: ID!) { deployment(id: $id) { id } }", { id: "\u0000" }, { "x-api-key": ada.apiKey }),
      // An unpaired surrogate: valid JSON, but no UTF-8 text (PostgreSQL refused it with a 500).
      await gqlAs(logIn, { email: "\ud800@x.com" }, {}),
      await gqlAs("query($id: ID!) { deployment(id: $id) { id } }", { id: "\udfff" }, { "x-api-key": ada.apiKey }),
      await gqlAs("mutation($name: String!) { createOrganization(name: $name) { id } }", { name: "Acme\u0000" }, { authorization: `Bearer ${ada.token}` }),
      await gqlAs(
        "mutation($d: ID!, $i: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $d, input: $i) { forwardingUrl } }",
        { d: ada.deploymentId, i: { forwardingUrl: "https://example.com/", triggers: [{ connector: "github", trigger: "issue\u0000opened" }] } },
        { authorization: `Bearer ${ada.token}` },
      ),
    ]) {
      expect(result.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
      expect(result.errors?.[0]?.message).toMatch(/NUL|surrogate/);
    }
  });

  test("a data item id outside PostgreSQL's integer range is NOT_FOUND", async () => {
    for (const id of ["2147483648", "99999999999999999999", "-1", "0", "1e3"]) {
      const result = await gqlAs("mutation($id: ID!) { updateDataItem(id: $id, name: \"x\") { id } }", { id }, { authorization: `Bearer ${ada.token}` });
      expect(result.errors?.[0]?.extensions.code, id).toBe("NOT_FOUND");
    }
  });

  test("a DateTime outside the years 0001–9999 is BAD_USER_INPUT, as a variable or a literal (found by the fuzzer)", async () => {
    const query = "mutation($d: ID!, $since: DateTime!) { retryFailedDeliveries(deploymentId: $d, since: $since) }";
    for (const since of ["+131050-03-17T04:19:51.364Z", "-000001-01-01T00:00:00.000Z"]) {
      const result = await gqlAs(query, { d: ada.deploymentId, since }, { authorization: `Bearer ${ada.token}` });
      expect(result.errors?.[0]?.extensions.code, since).toBe("BAD_USER_INPUT");
    }
    const literal = await gqlAs(`mutation { retryFailedDeliveries(deploymentId: "${ada.deploymentId}", since: "+131050-03-17T04:19:51.364Z") }`, {}, { authorization: `Bearer ${ada.token}` });
    expect(literal.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
    const fine = await gqlAs(query, { d: ada.deploymentId, since: "2026-01-01T00:00:00.000Z" }, { authorization: `Bearer ${ada.token}` });
    expect(fine.errors).toBeUndefined();
  });

  test("in a REST path or query: 400 invalid_parameter problem+json", async () => {
    for (const [method, path] of [
      ["GET", "/oauth/callback?state=%00"],
      ["GET", "/oauth/callback?state=abc&code=%00"],
      ["POST", "/webhooks/%00/github"],
      ["POST", `/webhooks/${ada.deploymentId}/git%00hub`],
      ["GET", "/api/data?offset=%00"],
      ["GET", "/api/v1/connector/service/github/auth-url?account=a%00b"],
      ["GET", "/connect/%00"],
      ["GET", "/api/data?%00=1"],
    ]) {
      const response = await fetch(`${app.url}${path}`, { method, headers: { "x-api-key": ada.apiKey } });
      expect(response.status, path).toBe(400);
      expect(response.headers.get("content-type"), path).toBe("application/problem+json");
      expect(await response.json(), path).toMatchObject({ status: 400, code: "invalid_parameter", detail: expect.stringMatching(/NUL/) });
    }
  });
});

describe("REST", () => {
  test("unknown paths are 404 and wrong methods 405, both problem+json", async () => {
    const missing = await fetch(`${app.url}/api/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect(await missing.json()).toMatchObject({ code: "not_found", status: 404 });

    const wrongMethod = await fetch(`${app.url}/api/data`, { method: "DELETE", headers: { "x-api-key": ada.apiKey } });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject({ code: "method_not_allowed" });
  });

  test("health, readiness and metrics answer", async () => {
    expect(await (await fetch(`${app.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${app.url}/readyz`)).json()).toMatchObject({ status: "ready" });
    await fetch(`${app.url}/api/data`, { headers: { "x-api-key": ada.apiKey } });
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/switchyard_http_requests_total\{route="\/api\/data",status="200"\} \d+/);
    expect(metrics).toContain("process_cpu_user_seconds_total");
  });

  test("a garbage request line does not take the server down", async () => {
    const { connect } = await import("node:net");
    const port = Number(new URL(app.url).port);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => socket.write("GARBAGE /%%% HTTP/9.9\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => (text += chunk));
      socket.on("close", () => resolve(text));
      socket.on("error", () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });
});
