import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeGitHub, startFakeGitHub } from "../helpers/fakeProviders/github.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { type FakeGitHubApi, startFakeGitHubApi } from "../proxy/fakeGitHubApi.ts";

/**
 * The examples in docs/reference/using-a-connection.md, exactly as written there, run against the
 * service with a GitHub connection made through the connect flow (and one whose refresh the
 * provider refused): curl and Node read the token and call GitHub through the proxy, and the Node
 * example turns `reauth_required` into a new authorization URL.
 */
const run = promisify(execFile);
const doc = readFileSync(new URL("../../docs/reference/using-a-connection.md", import.meta.url), "utf8");
const snippet = (language: string) => {
  const found = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(doc)?.[1];
  if (!found) throw new Error(`docs/reference/using-a-connection.md has no \`\`\`${language} block`);
  return found;
};

let github: FakeGitHub;
let api: FakeGitHubApi;
let app: TestApp;
let ada: Operator;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), "switchyard-connection-snippets-"));

beforeAll(async () => {
  github = await startFakeGitHub({ expiringTokens: true, autoApprove: true });
  api = await startFakeGitHubApi(github);
  app = await startTestApp({ ...github.env(), CONNECTOR_GITHUB_API_URL: api.url });
  ada = await createOperator(app, "Ada");
  await connectAccount(app, ada, { connector: "github", account: "alice", provider: github });
  await connectAccount(app, ada, { connector: "github", account: "bob", provider: github });
  await app.database.prisma.connectedAccount.updateMany({ where: { account: "bob" }, data: { status: "REAUTH_REQUIRED" } });
  env = { PATH: process.env.PATH ?? "", SWITCHYARD_URL: app.url, SWITCHYARD_API_KEY: ada.apiKey };
}, 120_000);
afterAll(async () => {
  await app?.close();
  await api?.close();
  await github?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the curl examples read alice's token and call GitHub as her", async () => {
  const { stdout } = await run("sh", ["-c", snippet("sh")], { env });
  // curl prints each body as it is, without a newline between them.
  const [token, user] = stdout.trim().replace(/\}\s*\{/, "}\n{").split("\n");
  expect(JSON.parse(token)).toMatchObject({ tokenType: "Bearer", scopes: ["read:user"] });
  expect(github.grants.some((g) => g.accessToken === JSON.parse(token).accessToken)).toBe(true);
  expect(JSON.parse(user).login).toBe("octocat");
});

test("the Node example calls GitHub as alice, and answers bob's reauth_required with a new authorization URL", async () => {
  const file = join(dir, "using-a-connection.mjs");
  writeFileSync(file, snippet("js"));
  const alice = await run(process.execPath, [file, "alice"], { env });
  expect(alice.stdout).toContain("alice is octocat on GitHub (HTTP 200)");
  expect(alice.stdout).toMatch(/token type Bearer, expires \d{4}-\d\d-\d\dT.*, scopes read:user/);
  const bob = await run(process.execPath, [file, "bob"], { env });
  expect(bob.stdout).toMatch(new RegExp(`^reconnect bob: ${app.url}/connect/\\S+$`, "m"));
});

test("the Python example calls GitHub as alice, and tells Switchyard's own errors apart", async () => {
  const file = join(dir, "using_a_connection.py");
  writeFileSync(file, snippet("python"));
  const alice = await run("python3", [file], { env });
  expect(alice.stdout.trim()).toBe("alice is octocat on GitHub");
  const wrongKey = await run("python3", [file], { env: { ...env, SWITCHYARD_API_KEY: "sy_live_not-a-key-not-a-key-not-a-key-xx" } });
  expect(wrongKey.stdout).toMatch(/^Switchyard: (invalid_api_key|missing_api_key) /);
});
