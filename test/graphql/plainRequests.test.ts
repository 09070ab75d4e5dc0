import { afterAll, beforeAll, describe, expect, test } from "vitest";
import pino from "pino";
import { loadConfig } from "../../src/config.ts";
import { CSRF_HEADER, createOriginPolicy } from "../../src/graphql/requestGuard.ts";
import { createGraphQLServer } from "../../src/graphql/yoga.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

// Plain application/json POSTs and query GETs are served without yoga's fetch layer (src/graphql/plainRequests.ts).
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

/**
 * A query sent as a GET (as the console's client sends queries) on the fast path, checked against
 * yoga's own answer to the same params POSTed: yoga answers a query the same either way.
 */
async function getAndPost(params: { query: string; variables?: unknown; operationName?: string }, extraHeaders: Record<string, string> = {}) {
  const headers = { [CSRF_HEADER]: "1", ...extraHeaders };
  const search = new URLSearchParams({ query: params.query });
  if (params.operationName) search.set("operationName", params.operationName);
  if (params.variables !== undefined) search.set("variables", JSON.stringify(params.variables));
  const response = await fetch(`${app.url}/graphql?${search}`, { headers });
  const seen: Record<string, string | null> = {};
  for (const name of READ_HEADERS) seen[name] = name === "set-cookie" ? response.headers.getSetCookie().join("\n") || null : response.headers.get(name);
  const fast = { status: response.status, headers: seen, body: await response.text() };
  expect(fast).toEqual(await post("application/graphql+json", params, headers));
  return fast;
}

describe("a query GET to /graphql answers as yoga does", () => {
  test("with a session, a key and nobody; the second time from the prepared query", async () => {
    const accept = "application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed";
    for (let time = 0; time < 2; time++) {
      const withSession = await getAndPost(page(operator.deploymentId), { accept, cookie: `sy_session=${operator.token}`, origin: app.url });
      expect(JSON.parse(withSession.body).data.deployment.id).toBe(operator.deploymentId);
      expect(withSession.headers["access-control-allow-origin"]).toBe(app.url);
      const withKey = await getAndPost(page(operator.deploymentId), { "x-api-key": operator.apiKey });
      expect(JSON.parse(withKey.body).data.deployment.dataItems.totalCount).toBe(0);
      expect(JSON.parse((await getAndPost(page(operator.deploymentId))).body).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    }
  });

  test("validation and variable errors, and a named operation", async () => {
    for (const accept of ["application/json", "application/graphql-response+json"]) {
      expect((await getAndPost({ query: "{ nope }" }, { accept })).status).toBe(accept === "application/json" ? 200 : 400);
      await getAndPost({ query: page("x").query, variables: { id: 5 } }, { accept, "x-api-key": operator.apiKey });
    }
    const two = "query A { viewer { id } } query B($id: ID!) { deployment(id: $id) { id } }";
    const named = await getAndPost({ query: two, operationName: "B", variables: { id: operator.deploymentId } }, { "x-api-key": operator.apiKey });
    expect(JSON.parse(named.body).data.deployment.id).toBe(operator.deploymentId);
  });

  test("a mutation is refused (405, Allow: POST) and not run; malformed variables are a 400", async () => {
    const session = await post("application/json", { query: "mutation($email: String!, $password: String!) { logIn(email: $email, password: $password) { user { id } } }", variables: { email: operator.email, password: "correct horse battery" } }, { [CSRF_HEADER]: "1" });
    const token = /sy_session=([^;]+)/.exec(session.headers["set-cookie"]!)![1];
    const logOut = await fetch(`${app.url}/graphql?${new URLSearchParams({ query: "mutation { logOut }" })}`, { headers: { [CSRF_HEADER]: "1", cookie: `sy_session=${token}` } });
    expect(logOut.status).toBe(405);
    expect(logOut.headers.get("allow")).toBe("POST");
    // Still signed in: the mutation did not run.
    const viewer = await fetch(`${app.url}/graphql?${new URLSearchParams({ query: "{ viewer { id } }" })}`, { headers: { [CSRF_HEADER]: "1", cookie: `sy_session=${token}` } });
    expect((await viewer.json()).data.viewer.id).toBeTruthy();
    const malformed = await fetch(`${app.url}/graphql?${new URLSearchParams({ query: "{ viewer { id } }", variables: "{not json" })}`, { headers: { [CSRF_HEADER]: "1" } });
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).not.toMatch(/ at |stack/i);
  });
});

// A query text the fast path has seen executed is answered again without yoga's parse, validation
// and envelop hooks (src/graphql/plainRequests.ts, `answerPrepared`). Every check those skipped hooks
// make on each request must still be made: each test below sends the same text more than once, so
// the later requests take the prepared path, and compares them with yoga's own answers.
describe("a query text seen before answers as yoga does", () => {
  const limited = "query Limited($id: ID!, $limit: Int) { deployment(id: $id) { id dataItems(limit: $limit) { totalCount nodes { id } } } }";

  test("the same page, with a key and with a session, and another deployment's", async () => {
    const other = await createOperator(app, "Elsewhere");
    for (const headers of [{ "x-api-key": operator.apiKey }, { authorization: `Bearer ${operator.token}` }] as Record<string, string>[]) {
      const first = await bothWays({ query: limited, variables: { id: operator.deploymentId, limit: 5 } }, headers);
      const again = await bothWays({ query: limited, variables: { id: operator.deploymentId, limit: 5 } }, headers);
      expect(again).toEqual(first);
      expect(JSON.parse(again.body).data.deployment.id).toBe(operator.deploymentId);
      // A field error on the prepared path: yoga words it (NOT_FOUND for a key, FORBIDDEN for a non-member).
      const refused = await bothWays({ query: limited, variables: { id: other.deploymentId, limit: 5 } }, headers);
      expect(JSON.parse(refused.body).errors[0].extensions.code).toMatch(/^(NOT_FOUND|FORBIDDEN)$/);
    }
  });

  test("credentials are checked on every request: a wrong key, no key, a logged-out session", async () => {
    const twin = await createOperator(app, "Keyholder");
    const query = { query: limited, variables: { id: twin.deploymentId, limit: 2 } };
    expect((await bothWays(query, { "x-api-key": twin.apiKey })).status).toBe(200);
    expect(JSON.parse((await bothWays(query, { "x-api-key": `${twin.apiKey}x` })).body).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(JSON.parse((await bothWays(query)).body).errors[0].extensions.code).toBe("UNAUTHENTICATED");
    expect(JSON.parse((await bothWays(query, { authorization: "Bearer sy_session_nope" })).body).errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });

  test("the cost limit and the input guard look at each request's variables", async () => {
    const headers = { "x-api-key": operator.apiKey };
    // Fifteen pages of up to $n items: fine at 5 a page, over the cost limit at 100 (which the
    // resolver itself would serve).
    const pages = `query Pages($id: ID!, $n: Int) { deployment(id: $id) { ${Array.from({ length: 15 }, (_, i) => `p${i}: dataItems(limit: $n) { nodes { id name description } }`).join(" ")} } }`;
    expect((await bothWays({ query: pages, variables: { id: operator.deploymentId, n: 5 } }, headers)).status).toBe(200);
    const tooCostly = await bothWays({ query: pages, variables: { id: operator.deploymentId, n: 100 } }, headers);
    expect(JSON.parse(tooCostly.body).errors[0].message).toContain("estimated cost");
    // A NUL in a variable of a skipped field: no resolver would see it, the guard still refuses it.
    const skipped = "query Skipped($id: ID!, $other: ID!, $skip: Boolean!) { deployment(id: $id) { id } other: deployment(id: $other) @skip(if: $skip) { id } }";
    const variables = { id: operator.deploymentId, other: operator.deploymentId, skip: true };
    expect(JSON.parse((await bothWays({ query: skipped, variables }, headers)).body).data.deployment.id).toBe(operator.deploymentId);
    const nul = await bothWays({ query: skipped, variables: { ...variables, other: "\u0000" } }, headers);
    expect(JSON.parse(nul.body).errors[0].message).toContain("NUL character");
  });

  test("operations refused at parse or validation are refused every time", async () => {
    const deep = `{ viewer { organizations { deployments { organization { deployments { organization { deployments { organization { deployments { organization { deployments { organization { id } } } } } } } } } } } } }`;
    const aliases = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: viewer { id }`).join(" ")} }`;
    const tokens = `{ viewer { ${Array.from({ length: 3100 }, () => "id").join(" ")} } }`;
    for (const query of [deep, aliases, tokens]) {
      const first = await bothWays({ query }, { authorization: `Bearer ${operator.token}` });
      expect(first.body).toContain('"errors"');
      expect(await bothWays({ query }, { authorization: `Bearer ${operator.token}` })).toEqual(first);
    }
  });

  test("the named operation of a document with several is the one that runs", async () => {
    const two = `query A($id: ID!) { deployment(id: $id) { id } } query B { viewer { email } }`;
    const headers = { authorization: `Bearer ${operator.token}` };
    for (let i = 0; i < 2; i++) {
      expect(JSON.parse((await bothWays({ query: two, operationName: "A", variables: { id: operator.deploymentId } }, headers)).body).data).toEqual({
        deployment: { id: operator.deploymentId },
      });
      expect(JSON.parse((await bothWays({ query: two, operationName: "B" }, headers)).body).data.viewer.email).toBe(operator.email);
      await bothWays({ query: two, operationName: "C" }, headers);
      await bothWays({ query: two, operationName: "" }, headers);
      // With one operation, none named is that one; "" names none.
      await bothWays({ query: "{ viewer { email } }" }, headers);
      await bothWays({ query: "{ viewer { email } }", operationName: "" }, headers);
    }
  });
});

describe("the prepared path with a small rate limit and introspection off", () => {
  let limitedApp: TestApp;
  let limitedOperator: Operator;
  beforeAll(async () => {
    limitedApp = await startTestApp({ RATE_LIMIT_PER_MINUTE: "6", GRAPHQL_INTROSPECTION: "false" });
    limitedOperator = await createOperator(limitedApp, "Limited");
  });
  afterAll(() => limitedApp.close());

  test("each request spends one point, whichever path answers it", async () => {
    const query = "query Limited($id: ID!, $limit: Int) { deployment(id: $id) { dataItems(limit: $limit) { totalCount } } }";
    const send = async (limit: number) => {
      const response = await fetch(`${limitedApp.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": limitedOperator.apiKey },
        body: JSON.stringify({ query, variables: { id: limitedOperator.deploymentId, limit } }),
      });
      return (await response.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] };
    };
    // Seen for the first time (yoga); prepared; prepared but a resolver error (yoga answers);
    // prepared but over the cost limit (yoga refuses); prepared twice more: six points.
    expect((await send(5)).data).toBeTruthy();
    expect((await send(5)).data).toBeTruthy();
    expect((await send(0)).errors?.[0].extensions.code).toBe("BAD_USER_INPUT");
    expect((await send(50_000)).errors?.[0].extensions.code).toBe("BAD_USER_INPUT");
    expect((await send(5)).data).toBeTruthy();
    expect((await send(5)).data).toBeTruthy();
    expect((await send(5)).errors?.[0].extensions.code).toBe("RATE_LIMITED");
  });

  test("introspection is refused every time", async () => {
    // `__typename` alone is no introspection: the same document shape, allowed and prepared.
    for (const query of ["{ __typename }", "{ __schema { queryType { name } } }", "{ __typename }", "{ __schema { queryType { name } } }"]) {
      const response = await fetch(`${limitedApp.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
      const body = (await response.json()) as { data?: unknown; errors?: { message: string }[] };
      if (query.includes("__schema")) expect(body.errors?.[0].message).toContain("introspection");
      else expect(body).toEqual({ data: { __typename: "Query" } });
    }
  });
});

test("every hook yoga runs around a query is one the prepared path makes too, or one that cannot change an error-free answer", () => {
  const config = loadConfig({ NODE_ENV: "production", PUBLIC_URL: "http://localhost", ENCRYPTION_KEY: Buffer.alloc(32).toString("base64") });
  const yoga = createGraphQLServer({ config, logger: pino({ level: "silent" }), databaseOutage: {} as never, origins: createOriginPolicy(config), contexts: {} as never });
  const QUERY_HOOKS = ["onParams", "onParse", "onValidate", "onContextBuilding", "onExecute", "onExecutionResult"];
  const hooks = (yoga as unknown as { plugins: (Record<string, unknown> | false)[] }).plugins
    .filter((plugin) => plugin !== false)
    .map((plugin) => QUERY_HOOKS.filter((hook) => hook in plugin).join(" "))
    .filter(Boolean);
  // A plugin added with one of these hooks fails this test: plainRequests.ts's `answerPrepared` must
  // then make its check too (or show why it need not), and this list grow by it.
  expect(hooks).toEqual([
    "onParse onValidate onExecute", // envelop's engine: graphql-js, whose execute graphql-jit replaces on both paths
    "onContextBuilding", // yoga's `context` option: buildContext, called by both paths
    "onContextBuilding", // Set-Cookie values: the prepared path reads the context's own `cookies`
    "onExecute", // the unstorable-input guard: preparedQueries.refuses asks it
    "onValidate", // armor: depth limit (a document that failed validation is never prepared)
    "onParse", // armor: token limit (a document that failed to parse is never prepared)
    "onValidate", // armor: alias limit
    "onValidate", // armor: directive limit
    "onValidate", // armor: field suggestions hidden (validation errors only)
    "onValidate", // introspection off
    "onExecute", // the cost limit: preparedQueries.refuses asks it
    "onExecute", // graphql-jit: the prepared query is its compiled query
    "onParse onValidate", // yoga's parse and validation cache
    "onParams", // yoga's parameter checks: isPlainParams lets only params they accept through
    "onParse", // no mutation over GET: the request view reports the method, and the prepared path runs queries only
    "onExecute", // masked errors (errors only: the prepared path answers only error-free results)
    "onValidate", // HTTP status of validation errors (validation errors only)
  ]);
});

test("every hook yoga runs around a request is one the fast path does itself, or one that never concerns its requests", () => {
  // Development: GraphiQL is on there.
  const config = loadConfig({ NODE_ENV: "development", PUBLIC_URL: "http://localhost", ENCRYPTION_KEY: Buffer.alloc(32).toString("base64") });
  const yoga = createGraphQLServer({ config, logger: pino({ level: "silent" }), databaseOutage: {} as never, origins: createOriginPolicy(config), contexts: {} as never });
  const REQUEST_HOOKS = ["onRequest", "onRequestParse", "onResultProcess", "onResponse"];
  const hooks = (yoga as unknown as { plugins: (Record<string, unknown> | false)[] }).plugins
    .filter((plugin) => plugin !== false)
    .map((plugin) => REQUEST_HOOKS.filter((hook) => hook in plugin).join(" "))
    .filter(Boolean);
  // A plugin added with one of these hooks fails this test: plainRequests.ts must then do what it does
  // for the requests it serves (or show why it need not), and this list grow by it.
  expect(hooks).toEqual([
    "onRequest", // yoga's health check: another path
    "onRequest onResponse", // CORS: preflights are OPTIONS; the fast path sets the same headers (getCORSHeadersByRequestAndOptions)
    "onRequest", // GraphiQL: a GET that accepts text/html, never taken
    "onRequestParse", // yoga's GET parser: plainParams reads a GET's params the same way
    "onRequestParse", // yoga's JSON POST parser: plainParams parses the same body
    "onRequestParse", // multipart, urlencoded, graphql+json parsers: other content types, never taken
    "onRequestParse",
    "onRequestParse",
    "onResultProcess", // the result processors: the fast path writes the regular JSON media types only (regularMediaType)
    "onResponse", // the HTML pages' security headers: the fast path answers JSON only
    "onRequestParse", // malformed JSON as a 400: the fast path leaves malformed JSON to yoga
    "onResponse", // Set-Cookie values: the fast path appends the same ones
    "onResultProcess", // SSE for subscriptions: an event stream, never taken
    "onRequestParse", // batching refused: a batch is not plain params
    "onRequest", // the endpoint's path: the fast path serves /graphql only (endpoint.ts)
    "onRequestParse", // GET and POST only: the fast path serves those only
  ]);
});
