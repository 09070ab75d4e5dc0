import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium } from "../console/browser.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * The CSRF attack of the security review, in Chromium: the owner is logged in (the HttpOnly
 * SameSite=Lax cookie), and a page on another port of the same host — same site, so the browser
 * attaches the cookie — tries to read the deployment's signing secret and create an API key with
 * fetch, HTML forms and a websocket. The same code run from the service's own origin (where the
 * console lives) and from an origin listed in CORS_ORIGINS succeeds.
 */

/** Runs in the page: every way a script can use the cookie, each answer as text. */
const attack = async ([service, deploymentId]: readonly [string, string]) => {
  const read = `{ deployment(id: "${deploymentId}") { signingSecret } }`;
  const create = `mutation { generateApiKey(deploymentId: "${deploymentId}") { apiKey } }`;
  const viaFetch = async (query: string, contentType: string) => {
    try {
      const body = contentType === "application/json" ? JSON.stringify({ query }) : new URLSearchParams({ query }).toString();
      const response = await fetch(`${service}/graphql`, { method: "POST", credentials: "include", headers: { "content-type": contentType }, body });
      return `${response.status} ${await response.text()}`;
    } catch (error) {
      return `blocked: ${(error as Error).message}`;
    }
  };
  const viaSocket = (query: string) =>
    new Promise<string>((resolve) => {
      const socket = new WebSocket(`${service.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
      socket.onopen = () => socket.send(JSON.stringify({ type: "connection_init" }));
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data));
        if (message.type === "connection_ack") socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query } }));
        if (message.type === "next" || message.type === "error") {
          resolve(JSON.stringify(message.payload));
          socket.close();
        }
      };
      socket.onclose = (event) => resolve(`closed ${event.code} ${event.reason}`);
    });
  return {
    jsonRead: await viaFetch(read, "application/json"),
    formRead: await viaFetch(read, "application/x-www-form-urlencoded"),
    jsonCreate: await viaFetch(create, "application/json"),
    formCreate: await viaFetch(create, "application/x-www-form-urlencoded"),
    wsRead: await viaSocket(read),
    wsCreate: await viaSocket(create),
  };
};

/** A site of its own on 127.0.0.1: one page with the attack script and two forms aimed at the service. */
async function startSite(): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const service = url.searchParams.get("service") ?? "";
    const mutation = `mutation { generateApiKey(deploymentId: "${url.searchParams.get("deployment")}") { apiKey } }`.replace(/"/g, "&quot;");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><title>Totally harmless</title>
<iframe name="sink"></iframe>
<form id="urlencoded" method="POST" target="sink" action="${service}/graphql"><input name="query" value="${mutation}"></form>
<form id="multipart" method="POST" target="sink" enctype="multipart/form-data" action="${service}/graphql"><input name="query" value="${mutation}"></form>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let evil: Awaited<ReturnType<typeof startSite>>;
let friend: Awaited<ReturnType<typeof startSite>>;
let app: TestApp;
let ada: Operator;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [evil, friend] = await Promise.all([startSite(), startSite()]);
  app = await startTestApp({ CORS_ORIGINS: friend.origin });
  ada = await createOperator(app, "Ada");
  browser = await launchChromium();
  context = await browser.newContext();
  // The owner is logged in to the console in this browser.
  await context.addCookies([{ name: "sy_session", value: ada.token, url: app.url, httpOnly: true, sameSite: "Lax" }]);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  for (const site of [evil, friend]) {
    site?.server.closeAllConnections();
    await new Promise((resolve) => site?.server.close(resolve));
  }
});

const keyPrefix = async () =>
  ((await app.gql(`{ deployment(id: "${ada.deploymentId}") { apiKey { prefix createdAt } } }`, {}, { token: ada.token })).data as { deployment: { apiKey: unknown } })
    .deployment.apiKey;

async function openSite(origin: string): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${origin}/?service=${encodeURIComponent(app.url)}&deployment=${ada.deploymentId}`);
  return page;
}

describe("a page on another port of the same host", () => {
  test("cannot read the signing secret or create an API key with the owner's cookie: fetch, forms and websockets all fail", async () => {
    const keyBefore = await keyPrefix();
    const page = await openSite(evil.origin);
    try {
      const results = await page.evaluate(attack, [app.url, ada.deploymentId] as const);
      for (const answer of Object.values(results)) expect(answer).not.toMatch(/whsec_|sy_\w+_/);
      // No credentialed CORS for this origin: the script cannot even see the answers.
      expect(results.jsonRead).toMatch(/^blocked/);
      expect(results.formRead).toMatch(/^blocked/);
      expect(results.jsonCreate).toMatch(/^blocked/);
      expect(results.formCreate).toMatch(/^blocked/);
      // The socket is closed before anything runs.
      expect(results.wsRead).toMatch(/^closed 4403 /);
      expect(results.wsCreate).toMatch(/^closed 4403 /);

      // Classic HTML forms (no script needed) reach the service with the cookie and are refused.
      for (const form of ["urlencoded", "multipart"]) {
        const answered = page.waitForResponse((response) => response.url() === `${app.url}/graphql` && response.request().method() === "POST");
        await page.evaluate((id) => (document.getElementById(id) as HTMLFormElement).submit(), form);
        const response = await answered;
        expect(response.status()).toBe(403);
        expect(await response.text()).toContain("FORBIDDEN");
      }
    } finally {
      await page.close();
    }
    // Nothing was created: the owner's key is the one they made.
    expect(await keyPrefix()).toEqual(keyBefore);
    expect((await app.gql(`{ deployment(id: "${ada.deploymentId}") { id } }`, {}, { apiKey: ada.apiKey })).errors).toBeUndefined();
  });
});

describe("the same operations", () => {
  test("succeed from the service's own origin (the console's) with JSON and the websocket; form bodies stay refused", async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${app.url}/healthz`);
      const results = await page.evaluate(attack, [app.url, ada.deploymentId] as const);
      expect(results.jsonRead).toMatch(/^200 .*"signingSecret":"whsec_/);
      expect(results.jsonCreate).toMatch(/^200 .*"apiKey":"sy_/);
      expect(results.wsRead).toMatch(/"signingSecret":"whsec_/);
      expect(results.wsCreate).toMatch(/"apiKey":"sy_/);
      expect(results.formRead).toMatch(/^403 .*FORBIDDEN/);
      expect(results.formCreate).toMatch(/^403 .*FORBIDDEN/);
    } finally {
      await page.close();
    }
  });

  test("succeed from an origin listed in CORS_ORIGINS (credentialed CORS)", async () => {
    const page = await openSite(friend.origin);
    try {
      const results = await page.evaluate(attack, [app.url, ada.deploymentId] as const);
      expect(results.jsonRead).toMatch(/^200 .*"signingSecret":"whsec_/);
      expect(results.jsonCreate).toMatch(/^200 .*"apiKey":"sy_/);
      expect(results.wsRead).toMatch(/"signingSecret":"whsec_/);
    } finally {
      await page.close();
    }
  });
});
