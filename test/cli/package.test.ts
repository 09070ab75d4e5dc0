import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { forwardTo, liveSubscriptions, until } from "../helpers/live.ts";
import { createOperator } from "../helpers/operators.ts";
import { freePort } from "../helpers/serviceProcess.ts";
import { graphqlClient, type TestApp } from "../helpers/testApp.ts";

/**
 * The package as a user gets it: `npm pack` (which builds), `npm install -g` of the tarball into a
 * temporary prefix, and the installed `switchyard` run from a directory outside the checkout.
 * Packing and installing take minutes on a busy machine, so it is done once for the whole file.
 * The installed service keeps its own embedded database whatever TEST_DATABASE_URL says, so the file
 * runs in the embedded pass of the suite only: the PostgreSQL pass would pack and test the same thing.
 */

const run = promisify(execFile);
const checkout = realpathSync(new URL("../..", import.meta.url).pathname);
const work = mkdtempSync(join(tmpdir(), "switchyard-package-"));
const elsewhere = mkdtempSync(join(tmpdir(), "switchyard-user-"));
const prefix = join(work, "prefix");
const bin = join(prefix, "bin", "switchyard");
const children: ChildProcess[] = [];
let skipped: string | undefined;
const postgresPass = Boolean(process.env.TEST_DATABASE_URL);

const MINUTES = 60_000;

beforeAll(async () => {
  if (postgresPass) return;
  await run("npm", ["pack", "--pack-destination", work], { cwd: checkout, timeout: 10 * MINUTES });
  const [tarball] = readdirSync(work).filter((name) => name.endsWith(".tgz"));
  try {
    // From the local npm cache when it has everything; the registry only for what it lacks.
    await run("npm", ["install", "-g", join(work, tarball), "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd: elsewhere,
      timeout: 10 * MINUTES,
    });
  } catch (error) {
    const output = String((error as { stderr?: string }).stderr ?? error);
    if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENOTCACHED/.test(output)) {
      skipped = `the npm registry is unreachable and the local cache lacks a dependency, so the tarball could not be installed:\n${output.slice(-500)}`;
      return;
    }
    throw error;
  }
}, 20 * MINUTES);

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

function switchyard(args: string[], env: Record<string, string> = {}) {
  const child = spawn(bin, args, { cwd: elsewhere, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

describe.skipIf(postgresPass)("the installed package, outside the checkout", () => {
  test("--version and --help", async ({ skip }) => {
    if (skipped) skip(skipped);
    const version = switchyard(["--version"]);
    expect(await version.exited).toBe(0);
    expect(version.stdout()).toMatch(/^switchyard \d+\.\d+\.\d+/);
    const help = switchyard(["--help"]);
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toMatch(/serve .*\n\s+migrate .*\n\s+listen .*\n\s+trigger /);
  });

  test("migrate, serve, then listen and trigger against it", { timeout: 5 * MINUTES }, async ({ skip }) => {
    if (skipped) skip(skipped);
    const dataDir = join(elsewhere, "data");
    const migrate = switchyard(["migrate"], { DATA_DIR: dataDir, LOG_LEVEL: "warn" });
    expect(await migrate.exited).toBe(0);
    expect(migrate.stdout()).toContain("Applied 0001_init");

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const serve = switchyard(["serve"], { DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, LOG_LEVEL: "warn" });
    await until(
      async () => serve.child.exitCode !== null || (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)),
      "the installed service to answer /readyz",
      2 * MINUTES,
    );
    expect(serve.child.exitCode, serve.stderr()).toBeNull();
    expect((await fetch(`${url}/console/`)).status).toBe(200); // the built console ships in the package

    const client = { url, gql: graphqlClient(url) } as unknown as TestApp;
    const ada = await createOperator(client, "Ada");
    await forwardTo(client, ada.deploymentId, "http://127.0.0.1:9/hook", { token: ada.token }); // never answered: not under test
    const listen = switchyard(["listen", "--url", url, "--api-key", ada.apiKey]);
    await until(() => listen.stderr().includes("Ready.") || listen.child.exitCode !== null, "listen to connect", 2 * MINUTES);
    expect(listen.stderr()).toContain(`Ready. Watching deployment "development" (${ada.deploymentId})`);
    await until(async () => (await liveSubscriptions(url)) === 2, "listen's subscriptions to start (the service's /metrics gauge)", MINUTES);

    const trigger = switchyard(["trigger", "github.issue_opened", "--url", url, "--api-key", ada.apiKey]);
    expect(await trigger.exited, trigger.stderr()).toBe(0);
    const id = /event (evt_\w+)/.exec(trigger.stdout())?.[1];
    expect(id).toBeDefined();
    await until(() => listen.stdout().includes(`[${id}]`), "listen to print the triggered event", MINUTES);

    listen.child.kill("SIGINT");
    expect(await listen.exited).toBe(0);
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
  });
});
