import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium } from "../console/browser.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

const apps: TestApp[] = [];
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(apps.map((app) => app.close()));
});

async function app(env: Record<string, string>) {
  const started = await startTestApp(env);
  apps.push(started);
  return started;
}

const asBrowser = (url: string) => fetch(`${url}/graphql`, { headers: { accept: "text/html" } });

describe("GraphiQL at /graphql", () => {
  test("loads with every host but the service's own blocked: its assets are bundled, not fetched from a CDN", { timeout: 240_000 }, async () => {
    const { url } = await app({});
    const page = await browser.newPage();
    const foreign: string[] = [];
    await page.route("**/*", (route) => {
      const host = new URL(route.request().url()).hostname;
      if (host === "127.0.0.1" || host === "localhost") return route.continue();
      foreign.push(route.request().url());
      return route.abort();
    });
    try {
      await page.goto(`${url}/graphql`);
      // The editor is up (not stuck on "Loading…"), and it read the schema by introspection.
      await page.locator(".graphiql-container").first().waitFor();
      await page.getByRole("button", { name: /documentation explorer/i }).click();
      await page.getByText("Query", { exact: true }).first().waitFor();
      expect(await page.getByText(/Loading/).count()).toBe(0);
      expect(await page.title()).toBe("Switchyard GraphQL");
      expect(foreign).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("is never framed and runs only its own scripts: frame-ancestors 'none', X-Frame-Options DENY, scripts by hash", async () => {
    const { url } = await app({});
    const response = await asBrowser(`${url}`);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/frame-ancestors 'none'/);
    const scripts = policy.split(";").map((directive) => directive.trim()).find((directive) => directive.startsWith("script-src "));
    expect(scripts).toMatch(/^script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+$/);
    expect(policy).toMatch(/connect-src 'self'/);
  });

  test("a page elsewhere that frames it with a pre-filled mutation gets nothing: the frame is refused", { timeout: 240_000 }, async () => {
    const { url } = await app({});
    // The attacker's page, on another origin.
    const attacker = createServer((_request, response) => {
      const target = `${url}/graphql?query=${encodeURIComponent("mutation { logOut }")}`;
      response.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>win a prize</title><iframe id="victim" onload="window.framed = true" src="${target}"></iframe>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    const page = await browser.newPage();
    try {
      await page.goto(`http://localhost:${(attacker.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => (window as unknown as { framed?: boolean }).framed === true);
      // Loaded, but refused: the frame holds the browser's error page, not GraphiQL.
      const frame = await (await page.$("#victim"))!.contentFrame();
      expect(frame!.url()).not.toContain("/graphql");
      expect(await frame!.locator(".graphiql-container").count()).toBe(0);
    } finally {
      await page.close();
      await new Promise((resolve) => attacker.close(resolve));
    }
  });

  test("in production it is off unless GRAPHQL_INTROSPECTION=true", { timeout: 240_000 }, async () => {
    const off = await app({ NODE_ENV: "production" });
    expect(await (await asBrowser(off.url)).text()).not.toContain("graphiql");
    const on = await app({ NODE_ENV: "production", GRAPHQL_INTROSPECTION: "true" });
    const response = await asBrowser(on.url);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toContain("Switchyard GraphQL");
  });

  test("GRAPHQL_INTROSPECTION=false turns it off in development", async () => {
    const off = await app({ NODE_ENV: "development", GRAPHQL_INTROSPECTION: "false" });
    expect(await (await asBrowser(off.url)).text()).not.toContain("Switchyard GraphQL");
  });
});
