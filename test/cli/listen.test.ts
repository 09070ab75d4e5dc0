import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo, until } from "../helpers/live.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { freePort } from "../helpers/serviceProcess.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const ListenSigningSecret = graphql(`
  query ListenSigningSecret($id: ID!) { deployment(id: $id) { signingSecret } }
`);

let app: TestApp;
let ada: Operator;
let forwardingTarget: Receiver; // the deployment's forwarding URL (the worker delivers there)
let local: Receiver; // the developer's local server behind --forward-to

beforeAll(async () => {
  forwardingTarget = await startReceiver();
  local = await startReceiver();
  app = await startTestApp({}, { worker: true });
  ada = await createOperator(app, "Ada");
  await forwardTo(app, ada.deploymentId, forwardingTarget.url, { token: ada.token });
});
afterAll(async () => {
  await app.close();
  await forwardingTarget.close();
  await local.close();
});

/** `switchyard …` as a developer runs it: the bin, in a child process. */
function switchyard(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, ["bin/switchyard.js", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

describe("switchyard listen", () => {
  // The server counts subscriptions: a previous test's listener must be gone before "2 active"
  // can mean this test's listener is subscribed.
  beforeEach(() => until(() => app.app.services.events.activeSubscriptions() === 0, "the previous listener's subscriptions to end", 30_000));

  test("prints each event as a line, re-sends it signed to --forward-to, prints the local status; Ctrl-C exits 0", async () => {
    const cli = switchyard(["listen", "--url", app.url, "--api-key", ada.apiKey, "--deployment", ada.deploymentId, "--forward-to", `${local.url}/hook`]);
    await until(() => cli.stderr().includes("Ready.") || cli.child.exitCode !== null, "listen to connect", 30_000);
    expect(cli.stderr()).toContain(`Ready. Watching deployment "development" (${ada.deploymentId}), forwarding to ${local.url}/hook`);
    await until(() => app.app.services.events.activeSubscriptions() === 2, "listen's subscriptions to start");

    const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });

    const [request] = await local.waitFor((requests) => requests.length === 1);
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hook");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-id"]).toBe(fired.id);
    // Signed with the deployment's secret, exactly as the forwarding URL receives it.
    const { deployment } = ok(await app.gql(ListenSigningSecret, { id: ada.deploymentId }, { token: ada.token }));
    const verified = new Webhook(deployment!.signingSecret!).verify(request.body, request.headers as Record<string, string>);
    expect(verified).toEqual({
      id: fired.id,
      type: "github.issue_opened",
      connector: "github",
      trigger: "issue_opened",
      account: "test",
      deploymentId: ada.deploymentId,
      occurredAt: fired.occurredAt,
      data: fired.payload,
    });
    // …and the same body the worker delivered to the real forwarding URL.
    const [delivered] = await forwardingTarget.waitFor((requests) => requests.some((r) => r.headers["webhook-id"] === fired.id));
    expect(JSON.parse(request.body)).toEqual(JSON.parse(delivered.body));

    await until(() => cli.stdout().includes("<-- [200]") && cli.stdout().includes("delivery SUCCEEDED"), "listen to print the local status and the delivery");
    const lines = cli.stdout().trim().split("\n");
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  --> github\\.issue_opened  account=test  \\[${fired.id}\\]  delivery PENDING$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`  <-- \\[200\\] POST ${local.url}/hook \\[${fired.id}\\] \\(\\d+ ms\\)$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`delivery SUCCEEDED \\[${fired.id}\\] attempt 1: HTTP 200$`)));

    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toContain("Stopped.");
  });

  test("a local server that is down is reported on the event's line, and listening goes on", async () => {
    const closedPort = await freePort();
    const cli = switchyard(["listen", "--url", app.url, "--token", ada.token, "--deployment", ada.deploymentId, "--forward-to", `http://127.0.0.1:${closedPort}/hook`]);
    await until(() => cli.stderr().includes("Ready."), "listen to connect", 30_000);
    await until(() => app.app.services.events.activeSubscriptions() === 2, "listen's subscriptions to start", 30_000);

    const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
    await until(() => cli.stdout().includes("<-- [ERR]"), "listen to report the failed local request");
    expect(cli.stdout()).toContain(`<-- [ERR] POST http://127.0.0.1:${closedPort}/hook [${fired.id}]: connection refused. Is your local server running?`);
    expect(cli.child.exitCode).toBeNull();

    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
  });

  test("a wrong API key says so and what to do, and exits 1", async () => {
    const cli = switchyard(["listen", "--url", app.url, "--api-key", "sy_test_notarealkeynotarealkeynotarealkey00", "--deployment", ada.deploymentId]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/The API key was refused: The API key is not valid.*\nGenerate a new key in the console .* --api-key/);
  });

  test("another organization's deployment is refused with a hint", async () => {
    const bob = await createOperator(app, "Bob");
    const cli = switchyard(["listen", "--url", app.url, "--api-key", bob.apiKey, "--deployment", ada.deploymentId]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(`These credentials may not watch deployment ${ada.deploymentId}.`);
    expect(cli.stderr()).toContain("an API key only sees its own deployment");
  });

  test("an unreachable service says how to start it", async () => {
    const closedPort = await freePort();
    const cli = switchyard(["listen", "--url", `http://127.0.0.1:${closedPort}`, "--api-key", ada.apiKey, "--deployment", ada.deploymentId]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(`Cannot reach Switchyard at http://127.0.0.1:${closedPort} (connection refused).`);
    expect(cli.stderr()).toContain("npx switchyard serve");
  });

  test("missing options and --help", async () => {
    const [missing, unknown, help] = [
      switchyard(["listen", "--api-key", ada.apiKey]),
      switchyard(["listen", "--deployment", "x", "--bogus"]),
      switchyard(["listen", "--help"]),
    ];
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain("Pass --deployment <id>");
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("Unknown option '--bogus'");
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("Usage: switchyard listen --deployment ID (--api-key KEY | --token TOKEN)");
    expect(help.stdout()).toContain("--forward-to URL");
  });
});

describe("switchyard", () => {
  test("--help lists serve, migrate and listen; each has its own --help", async () => {
    const [help, serve, migrate, unknown] = [["--help"], ["serve", "--help"], ["migrate", "--help"], ["frobnicate"]].map((args) => switchyard(args));
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toMatch(/serve .*\n\s+migrate .*\n\s+listen /);
    for (const [command, sub] of [["serve", serve], ["migrate", migrate]] as const) {
      expect(await sub.exited).toBe(0);
      expect(sub.stdout()).toContain(`Usage: switchyard ${command}`);
    }
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain('Unknown command "frobnicate"');
  });

  test("migrate applies the migrations to the configured database and exits 0", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "switchyard-migrate-"));
    try {
      const migrate = switchyard(["migrate"], { DATA_DIR: dataDir, LOG_LEVEL: "warn" });
      expect(await migrate.exited).toBe(0);
      expect(migrate.stdout()).toContain(`The database is up to date (embedded, in ${dataDir})`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
