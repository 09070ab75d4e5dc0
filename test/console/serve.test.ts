import { Readable } from "node:stream";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildConsole, consoleDist } from "../../scripts/build-console.ts";
import { CONSOLE_DIST, consoleRoutes, resolveConsolePath } from "../../src/rest/console.ts";
import { SignUp } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let asset: string;

beforeAll(async () => {
  await buildConsole({ quiet: true });
  app = await startTestApp();
  asset = readdirSync(join(consoleDist, "assets")).find((name) => name.endsWith(".js"))!;
});
afterAll(() => app?.close());

/** Raw HTTP without fetch's URL normalisation, so `..` and odd encodings reach the server as sent. */
async function raw(path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(app.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the console is served at /console", () => {
  // First in the file: nobody has signed up on this database yet.
  test("first run: the console knows whether anyone has signed up yet", async () => {
    const before = await fetch(`${app.url}/console/api/status`);
    expect(before.headers.get("cache-control")).toBe("no-store");
    expect(await before.json()).toEqual({ firstRun: true });
    ok(await app.gql(SignUp, { email: "first@example.com", password: "correct horse battery", name: "First" }));
    expect(await (await fetch(`${app.url}/console/api/status`)).json()).toEqual({ firstRun: false });
  });

  test("the service's root sends a browser to the console", async () => {
    const response = await fetch(`${app.url}/`, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/console/");
    const bare = await fetch(`${app.url}/console`, { redirect: "manual" });
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/console/");
  });

  test("/console/ is the app's index.html, revalidated on every visit, with a strict content policy", async () => {
    const response = await fetch(`${app.url}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const body = await response.text();
    expect(body).toContain('<div id="root"></div>');
    expect(body).toMatch(/src="\/console\/assets\/index-[\w-]+\.js"/);
  });

  test("any page of the app (a path without an extension) gets index.html: deep links and reloads work", async () => {
    for (const path of ["/console/login", "/console/organizations/abc/integration", "/console/deployments/x/forwarding"]) {
      const response = await fetch(`${app.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain('<div id="root"></div>');
    }
  });

  test("hashed assets are cached for a year, with their content type", async () => {
    const response = await fetch(`${app.url}/console/assets/${asset}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = readdirSync(join(consoleDist, "assets")).find((name) => name.endsWith(".css"))!;
    const style = await fetch(`${app.url}/console/assets/${css}`);
    expect(style.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  test("a missing file is a 404 problem, not the app", async () => {
    const response = await fetch(`${app.url}/console/assets/nope-123.js`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect((await response.json()).code).toBe("not_found");
  });

  test("no path leaves the build folder, however it is encoded", async () => {
    for (const path of [
      "/console/../package.json",
      "/console/%2e%2e/package.json",
      "/console/..%2fpackage.json",
      "/console/assets/..%2f..%2f..%2fpackage.json",
      "/console/%2e%2e%2f%2e%2e%2fsrc%2fconfig.ts",
      "/console/..%5c..%5cpackage.json",
      "/console/index.html%00.js",
    ]) {
      const response = await raw(path);
      expect(response.status, path).toBe(404);
      expect(response.body, path).not.toContain('"name": "switchyard"');
      expect(response.body, path).not.toContain("process.env");
    }
    const bad = await raw("/console/%E0%A4%A.js");
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).code).toBe("invalid_request");
  });

  test("resolveConsolePath keeps every decoded path inside the folder", () => {
    expect(resolveConsolePath(CONSOLE_DIST, "assets/a.js")).toBe(join(CONSOLE_DIST, "assets", "a.js"));
    expect(resolveConsolePath(CONSOLE_DIST, "")).toBe(CONSOLE_DIST);
    for (const evil of ["..", "../x", "a/../../x", "%2e%2e/x", "a%2f..%2f..%2fx", "x%00"]) {
      expect(() => resolveConsolePath(CONSOLE_DIST, evil), evil).toThrow();
    }
  });

});

describe("before the console is built", () => {
  test("/console/ says how to build it instead of failing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "console-dist-"));
    try {
      const route = consoleRoutes(app.database.prisma, empty).find((r) => r.path === "/console/*")!;
      const response = await route.handler({
        method: "GET",
        url: new URL(`${app.url}/console/`),
        headers: {},
        params: { "*": "" },
        ip: "127.0.0.1",
        body: async () => Buffer.alloc(0),
        stream: () => Readable.from([]),
      });
      expect(response.status).toBe(503);
      expect(String(response.body)).toContain("npm run console:build");
      mkdirSync(join(empty, "assets"));
      writeFileSync(join(empty, "index.html"), "<!doctype html><p>built</p>");
      const built = await route.handler({
        method: "GET",
        url: new URL(`${app.url}/console/x`),
        headers: {},
        params: { "*": "x" },
        ip: "127.0.0.1",
        body: async () => Buffer.alloc(0),
        stream: () => Readable.from([]),
      });
      expect(built.status).toBe(200);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
