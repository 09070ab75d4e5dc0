import SwaggerParser from "@apidevtools/swagger-parser";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchChromium } from "../console/browser.ts";
import { assertMatchesContract, openApi } from "../helpers/openapi.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let browser: Browser | undefined;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await browser?.close();
  await app.close();
});

describe("the OpenAPI document", () => {
  test("is valid OpenAPI 3.1 (swagger-parser validates it against the specification's schema)", async () => {
    const served = await (await fetch(`${app.url}/openapi.json`)).json();
    const api = await SwaggerParser.validate(structuredClone(served));
    expect((api as { openapi?: string }).openapi).toBe("3.1.0");
    expect(served.servers).toEqual([{ url: app.url }]);
  });

  test("describes every REST route the service serves", () => {
    // Everything except the console (its own app) and /graphql (documented by its schema).
    expect(Object.keys(openApi.paths).sort()).toEqual(
      [
        "/api/v1/connector/service/{connector_name}/auth-url",
        "/api/data",
        "/api/v1/connections",
        "/api/v1/connections/{connector}/{account}",
        "/webhooks/{deploymentId}/{connector}",
        "/connect/{token}",
        "/connect/{token}/consent",
        "/oauth/callback",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
        "/api/v1/connections/{connector}/{account}/token",
        "/api/v1/connections/{connector}/{account}/resources",
        "/api/v1/connections/{connector}/{account}/resources/{id}",
        "/api/v1/proxy/{connector}/{account}/{path}",
      ].sort(),
    );
  });

  test("health responses match it, and a response that differs from it is caught", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics", "/openapi.json"]) {
      const response = await fetch(`${app.url}${path}`);
      await assertMatchesContract("GET", new URL(response.url), response);
    }
    const drifted = new Response(JSON.stringify({ status: "ok", extra: 1 }), { status: 200, headers: { "content-type": "application/json" } });
    await expect(assertMatchesContract("GET", new URL(`${app.url}/readyz`), drifted)).rejects.toThrow(/does not match the document/);
    const undocumented = new Response("", { status: 418 });
    await expect(assertMatchesContract("GET", new URL(`${app.url}/healthz`), undocumented)).rejects.toThrow(/status 418 is not documented/);
  });

  test("/docs/api renders the reference with no internet: every asset is served by the service", async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    const foreign: string[] = [];
    await page.route("**/*", (route) => {
      const host = new URL(route.request().url()).hostname;
      if (host === "127.0.0.1" || host === "localhost") return route.continue();
      foreign.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${app.url}/docs/api`);
    await page.getByText("Switchyard REST API").first().waitFor();
    await page.getByText("/api/v1/connector/service/{connector_name}/auth-url").first().waitFor();
    expect(foreign).toEqual([]);
  });
});
