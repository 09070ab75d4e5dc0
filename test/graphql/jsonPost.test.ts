import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CSRF_HEADER } from "../../src/graphql/requestGuard.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

// Plain application/json POSTs are served without yoga's fetch layer (src/graphql/jsonPost.ts).
// `application/graphql+json` is parsed by yoga exactly like JSON but never takes the shortcut, so
// the same request under both content types must get the same answer: status, the headers a client
// reads, and the body.

let app: TestApp;
let operator: Operator;
beforeAll(async () => {
  app = await startTestApp();
  operator = await createOperator(app, "Twin");
});
afterAll(() => app.close());

const READ_HEADERS = ["content-type", "set-cookie", "access-control-allow-origin", "access-control-allow-credentials", "vary", "allow"];

async function post(contentType: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": contentType, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const seen: Record<string, string | null> = {};
  for (const name of READ_HEADERS) seen[name] = name === "set-cookie" ? response.headers.getSetCookie().join("\n") || null : response.headers.get(name);
  return { status: response.status, headers: seen, body: await response.text() };
}

/**
 * The fast path's answer, checked against yoga's own for the same request. The CSRF header lets the
 * cookie-bearing `application/graphql+json` request past app.ts's origin guard (which refuses
 * cookie requests that a cross-site form could send); the guard has its own tests.
 */
async function bothWays(body: unknown, extraHeaders: Record<string, string> = {}) {
  const headers = { [CSRF_HEADER]: "1", ...extraHeaders };
  const fast = await post("application/json", body, headers);
  const yoga = await post("application/graphql+json", body, headers);
  expect(fast).toEqual(yoga);
  return fast;
}

const page = (id: string) => ({
  query: "query Page($id: ID!) { deployment(id: $id) { id dataItems { totalCount nodes { id } } } }",
  variables: { id },
});

describe("a JSON POST to /graphql answers as yoga does", () => {
  test("a query with a session, a key, and nobody", async () => {
    const withSession = await bothWays(page(operator.deploymentId), { authorization: `Bearer ${operator.token}` });
    expect(withSession.status).toBe(200);
    expect(JSON.parse(withSession.body).data.deployment.id).toBe(operator.deploymentId);
    const withKey = await bothWays(page(operator.deploymentId), { "x-api-key": operator.apiKey });
    expect(JSON.parse(withKey.body).data.deployment.dataItems.totalCount).toBe(0);
    const nobody = await bothWays(page(operator.deploymentId));
    expect(JSON.parse(nobody.body).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  test("a wrong key, another deployment, and a wrong bearer token", async () => {
    const other = await createOperator(app, "Other");
    expect(JSON.parse((await bothWays(page(operator.deploymentId), { "x-api-key": `${operator.apiKey}x` })).body).errors[0].extensions.code).toBe(
      "UNAUTHENTICATED",
    );
    expect(JSON.parse((await bothWays(page(other.deploymentId), { authorization: `Bearer ${operator.token}` })).body).errors[0].extensions.code).toBe(
      "FORBIDDEN",
    );
    expect(JSON.parse((await bothWays(page(operator.deploymentId), { authorization: "Bearer sy_session_nope" })).body).errors[0].extensions.code).toBe(
      "UNAUTHENTICATED",
    );
  });

  test("validation, parse and variable errors, under both JSON media types", async () => {
    for (const accept of ["application/json", "application/graphql-response+json", "*/*"]) {
      const unknownField = await bothWays({ query: "{ nope }" }, { accept });
      expect(unknownField.status).toBe(accept === "application/graphql-response+json" ? 400 : 200);
      expect(unknownField.headers["content-type"]).toContain(accept === "*/*" ? "application/json" : accept);
      await bothWays({ query: "{ deployment(" }, { accept });
      await bothWays({ query: page("x").query, variables: { id: 5 } }, { accept });
    }
  });

  test("a query's errors (compiled on the fast path) are the executor's: resolver errors, bad variables", async () => {
    const headers = { "x-api-key": operator.apiKey };
    const limited = "query Page($id: ID!, $limit: Int) { deployment(id: $id) { id dataItems(limit: $limit) { totalCount nodes { id } } } }";
    const tooMany = await bothWays({ query: limited, variables: { id: operator.deploymentId, limit: 1000 } }, headers);
    expect(JSON.parse(tooMany.body).errors[0].path).toEqual(["deployment", "dataItems"]);
    const notAnInt = await bothWays({ query: limited, variables: { id: operator.deploymentId, limit: "ten" } }, headers);
    expect(JSON.parse(notAnInt.body).errors[0].message).toBe('Variable "$limit" got invalid value "ten"; Int cannot represent non-integer value: "ten"');
    await bothWays({ query: limited, variables: { id: [operator.deploymentId] } }, headers);
    await bothWays({ query: limited, variables: { id: null } }, headers);
  });

  test("the console's Accept header, and an Origin", async () => {
    const accept = "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed";
    const answer = await bothWays(page(operator.deploymentId), { accept, cookie: `sy_session=${operator.token}`, origin: app.url });
    expect(answer.headers["content-type"]).toBe("application/graphql-response+json; charset=utf-8");
    expect(answer.headers["access-control-allow-origin"]).toBe(app.url);
  });

  test("armor's limits and odd bodies", async () => {
    const deep = `{ viewer { organizations { deployments { organization { deployments { organization { deployments { organization { deployments { organization { deployments { organization { id } } } } } } } } } } } } }`;
    expect((await bothWays({ query: deep })).body).toContain("depth");
    await bothWays({ query: `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: viewer { id }`).join(" ")} }` });
    await bothWays("{not json");
    await bothWays({ query: "{ viewer { id } }", extra: 1 });
    await bothWays([{ query: "{ viewer { id } }" }]);
    await bothWays({ variables: {} });
  });

  test("logIn and logOut set their cookies", async () => {
    const credentials = { email: operator.email, password: "correct horse battery" };
    const logIn = { query: "mutation($email: String!, $password: String!) { logIn(email: $email, password: $password) { user { id } } }", variables: credentials };
    const fast = await post("application/json", logIn, { [CSRF_HEADER]: "1" });
    const yoga = await post("application/graphql+json", logIn, { [CSRF_HEADER]: "1" });
    expect(fast.status).toBe(200);
    expect(fast.headers["set-cookie"]).toMatch(/^sy_session=sy_session_[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    // Each logIn makes a new session: compare everything but the token.
    const withoutToken = (answer: typeof fast) => ({ ...answer, headers: { ...answer.headers, "set-cookie": answer.headers["set-cookie"]?.replace(/sy_session_[^;]+/, "…") } });
    expect(withoutToken(fast)).toEqual(withoutToken(yoga));

    const token = /sy_session=([^;]+)/.exec(fast.headers["set-cookie"]!)![1];
    const logOut = await post("application/json", { query: "mutation { logOut }" }, { cookie: `sy_session=${token}` });
    expect(JSON.parse(logOut.body).data.logOut).toBe(true);
    expect(logOut.headers["set-cookie"]).toMatch(/^sy_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    // The session is gone: both paths now see nobody, and still clear the cookie.
    const again = await bothWays({ query: "mutation { logOut }" }, { cookie: `sy_session=${token}` });
    expect(JSON.parse(again.body).data.logOut).toBe(false);
  });
});
