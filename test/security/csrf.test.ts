import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * /graphql's CSRF and CORS rules as a browser would exercise them, spoken with plain HTTP so each
 * header is explicit (test/security/csrf.browser.test.ts runs the attack in Chromium).
 */

const FRIEND = "https://console.example.com";
const EVIL = "http://127.0.0.1:1";

let app: TestApp;
let ada: Operator;
beforeAll(async () => {
  app = await startTestApp({ CORS_ORIGINS: `${FRIEND}, http://localhost:5173` });
  ada = await createOperator(app, "Ada");
});
afterAll(() => app.close());

const secretQuery = () => `{ deployment(id: "${ada.deploymentId}") { signingSecret } }`;
const cookie = () => `sy_session=${ada.token}`;

async function post(body: string, headers: Record<string, string>) {
  const response = await fetch(`${app.url}/graphql`, { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const secretOf = (result: Awaited<ReturnType<typeof post>>) => result.body?.data?.deployment?.signingSecret as string | undefined;

describe("requests with the session cookie", () => {
  test("a JSON POST from the service's own origin, or an allowed one, is served", async () => {
    for (const origin of [app.url, FRIEND]) {
      const result = await post(JSON.stringify({ query: secretQuery() }), { "content-type": "application/json", cookie: cookie(), origin });
      expect(secretOf(result)).toMatch(/^whsec_/);
    }
    // No Origin at all (a same-origin GET in some browsers, or curl) with JSON: served.
    expect(secretOf(await post(JSON.stringify({ query: secretQuery() }), { "content-type": "application/json", cookie: cookie() }))).toMatch(/^whsec_/);
  });

  test("from another origin (Origin, or Referer without Origin) it is refused with 403 FORBIDDEN", async () => {
    for (const headers of [{ origin: EVIL }, { referer: `${EVIL}/attack.html` }, { origin: "null" }, { "sec-fetch-site": "same-site" }] as Record<string, string>[]) {
      const result = await post(JSON.stringify({ query: secretQuery() }), { "content-type": "application/json", cookie: cookie(), ...headers });
      expect(result.status).toBe(403);
      expect(result.body.errors[0].extensions.code).toBe("FORBIDDEN");
      expect(result.body.data).toBeUndefined();
    }
  });

  test("bodies an HTML form can send (urlencoded, multipart, text/plain) and application/graphql are refused, even from the own origin", async () => {
    const mutation = `mutation { generateApiKey(deploymentId: "${ada.deploymentId}") { apiKey } }`;
    const form = new FormData();
    form.set("query", mutation);
    const multipart = new Request("http://x", { method: "POST", body: form });
    const bodies: [string, string][] = [
      ["application/x-www-form-urlencoded", new URLSearchParams({ query: mutation }).toString()],
      [multipart.headers.get("content-type")!, await multipart.text()],
      ["text/plain", JSON.stringify({ query: mutation })],
      ["application/graphql", mutation],
    ];
    for (const [contentType, body] of bodies) {
      const result = await post(body, { "content-type": contentType, cookie: cookie(), origin: app.url });
      expect(result.status, contentType).toBe(403);
      expect(result.body.errors[0].extensions.code).toBe("FORBIDDEN");
      expect(result.body.errors[0].message).toMatch(/application\/json/);
    }
    // The key made by createOperator still works: nothing generated a new one.
    const check = await post(JSON.stringify({ query: `{ deployment(id: "${ada.deploymentId}") { id } }` }), { "content-type": "application/json", "x-api-key": ada.apiKey });
    expect(check.body.data.deployment.id).toBe(ada.deploymentId);
  });

  test("a GET needs the x-graphql-yoga-csrf header (a custom header forces a CORS preflight); a page load is exempt", async () => {
    const url = `${app.url}/graphql?query=${encodeURIComponent(secretQuery())}`;
    const plain = await fetch(url, { headers: { cookie: cookie() } });
    expect(plain.status).toBe(403);
    expect((await plain.json()).errors[0].extensions.code).toBe("FORBIDDEN");

    const withHeader = await fetch(url, { headers: { cookie: cookie(), "x-graphql-yoga-csrf": "1" } });
    expect((await withHeader.json()).data.deployment.signingSecret).toMatch(/^whsec_/);

    // Following a link to GraphiQL shows the page; nothing the linking page can read.
    const page = await fetch(`${app.url}/graphql`, { headers: { cookie: cookie(), accept: "text/html", referer: `${EVIL}/` } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
  });
});

describe("API keys and bearer tokens are not ambient: callers from anywhere keep working", () => {
  test("any origin, any content type yoga accepts", async () => {
    const key = await post(new URLSearchParams({ query: `{ deployment(id: "${ada.deploymentId}") { id } }` }).toString(), {
      "content-type": "application/x-www-form-urlencoded",
      "x-api-key": ada.apiKey,
      origin: EVIL,
      cookie: cookie(),
    });
    expect(key.body.data.deployment.id).toBe(ada.deploymentId);

    const bearer = await post(secretQuery(), { "content-type": "application/graphql", authorization: `Bearer ${ada.token}`, origin: EVIL });
    expect(secretOf(bearer)).toMatch(/^whsec_/);
  });
});

describe("anonymous requests", () => {
  test("a page of another origin cannot log a browser in (login CSRF); a CLI without Origin can", async () => {
    const logIn = JSON.stringify({ query: `mutation { logIn(email: "${ada.email}", password: "correct horse battery") { token } }` });
    const foreign = await post(logIn, { "content-type": "application/json", origin: EVIL });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("set-cookie")).toBeNull();

    const cli = await post(logIn, { "content-type": "application/json" });
    expect(cli.body.data.logIn.token).toBeTruthy();
  });
});

describe("CORS", () => {
  const preflight = (origin: string) =>
    fetch(`${app.url}/graphql`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });

  test("credentialed CORS only for PUBLIC_URL's origin and CORS_ORIGINS; nothing for other origins", async () => {
    for (const origin of [app.url, FRIEND, "http://localhost:5173"]) {
      const response = await preflight(origin);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      expect(response.headers.get("access-control-allow-credentials")).toBe("true");
    }
    for (const origin of [EVIL, "https://console.example.com.evil.test", "null"]) {
      const response = await preflight(origin);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    }
    const answer = await fetch(`${app.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", origin: EVIL, "x-api-key": ada.apiKey }, body: JSON.stringify({ query: "{ viewer { id } }" }) });
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("CORS_ORIGINS must list origins: a path, a wildcard or garbage stops start-up with a message naming it", () => {
    const env = { ENCRYPTION_KEY: randomBytes(32).toString("base64") };
    expect(loadConfig({ ...env, CORS_ORIGINS: " https://a.example.com/ ,http://localhost:5173" }).corsOrigins).toEqual(["https://a.example.com", "http://localhost:5173"]);
    expect(loadConfig(env).corsOrigins).toEqual([]);
    for (const bad of ["*", "https://a.example.com/console", "a.example.com", "ftp://a.example.com"]) {
      expect(() => loadConfig({ ...env, CORS_ORIGINS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS: .* is not an origin/);
    }
  });
});
