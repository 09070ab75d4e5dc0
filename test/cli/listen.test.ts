import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { stopCli, switchyard } from "../helpers/cli.ts";
import { graphql } from "../generated/gql.ts";
import { fireTestEvent, forwardTo, until } from "../helpers/live.ts";
import { createOperator, joinByInvitation, type Operator, SignUp } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { freePort } from "../helpers/serviceProcess.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const ListenSigningSecret = graphql(`
  query ListenSigningSecret($id: ID!) { deployment(id: $id) { signingSecret } }
`);
const ListenLogIn = graphql(`
  mutation ListenLogIn($email: String!, $password: String!) { logIn(email: $email, password: $password) { token } }
`);
const ListenLogOut = graphql(`mutation ListenLogOut { logOut }`);
const ListenCreateDeployment = graphql(`
  mutation ListenCreateDeployment($organizationId: ID!) { createDeployment(organizationId: $organizationId, name: "staging") { id } }
`);
const ListenRemoveMember = graphql(`
  mutation ListenRemoveMember($organizationId: ID!, $userId: ID!) { removeMember(organizationId: $organizationId, userId: $userId) }
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

afterEach(stopCli);

describe("switchyard listen", () => {
  // The server counts subscriptions: a previous test's listener must be gone before "2 active"
  // can mean this test's listener is subscribed.
  beforeEach(() => until(() => app.app.bus.activeSubscriptions() === 0, "the previous listener's subscriptions to end", 30_000));

  test("prints each event as a line, re-sends it signed to --forward-to, prints the local status; Ctrl-C exits 0", async () => {
    const cli = switchyard(["listen", "--url", app.url, "--api-key", ada.apiKey, "--deployment", ada.deploymentId, "--forward-to", `${local.url}/hook`]);
    await until(() => cli.stderr().includes("Ready.") || cli.child.exitCode !== null, "listen to connect", 30_000);
    expect(cli.stderr()).toContain(`Ready. Watching deployment "development" (${ada.deploymentId}), forwarding to ${local.url}/hook`);
    await until(() => app.app.bus.activeSubscriptions() === 2, "listen's subscriptions to start");

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
      resource: null,
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
    await until(() => app.app.bus.activeSubscriptions() === 2, "listen's subscriptions to start", 30_000);

    const fired = await fireTestEvent(app, ada.deploymentId, { token: ada.token });
    await until(() => cli.stdout().includes("<-- [ERR]"), "listen to report the failed local request");
    expect(cli.stdout()).toContain(`<-- [ERR] POST http://127.0.0.1:${closedPort}/hook [${fired.id}]: connection refused. Is your local server running?`);
    expect(cli.child.exitCode).toBeNull();

    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
  });

  test("a session logged out while it listens: prints the server's reason and what to do, and exits 1", async () => {
    const token = ok(await app.gql(ListenLogIn, { email: ada.email, password: "correct horse battery" })).logIn.token;
    const cli = switchyard(["listen", "--url", app.url, "--token", token, "--deployment", ada.deploymentId]);
    await until(() => cli.stderr().includes("Ready.") || cli.child.exitCode !== null, "listen to connect", 30_000);
    await until(() => app.app.bus.activeSubscriptions() === 2, "listen's subscriptions to start", 30_000);

    ok(await app.gql(ListenLogOut, {}, { token }));
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(
      /The session token stopped working: Your session ended \(you logged out, your password was changed, or it expired\), so this subscription stopped\. Log in again.*\nLog in to the console again and pass the new token with --token/,
    );
  });

  test("a member removed from the organization while listening is told so, and listen exits 1", async () => {
    const email = `listener-${Date.now()}@example.com`;
    const member = ok(await app.gql(SignUp, { email, password: "correct horse battery", name: "Listener" })).signUp;
    await joinByInvitation(app.gql, ada.token, ada.organizationId, { email, token: member.token });
    const cli = switchyard(["listen", "--url", app.url, "--token", member.token, "--deployment", ada.deploymentId]);
    await until(() => cli.stderr().includes("Ready.") || cli.child.exitCode !== null, "listen to connect", 30_000);
    await until(() => app.app.bus.activeSubscriptions() === 2, "listen's subscriptions to start", 30_000);

    ok(await app.gql(ListenRemoveMember, { organizationId: ada.organizationId, userId: member.user.id }, { token: ada.token }));
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(
      `These credentials may no longer watch deployment ${ada.deploymentId}: You are no longer a member of this deployment's organization, so this subscription stopped.`,
    );
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
      switchyard(["listen", "--deployment", ada.deploymentId]),
      switchyard(["listen", "--deployment", "x", "--bogus"]),
      switchyard(["listen", "--help"]),
    ];
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain("Pass --api-key <key>");
    expect(await unknown.exited).toBe(2);
    expect(unknown.stderr()).toContain("Unknown option '--bogus'");
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain("Usage: switchyard listen (--api-key KEY | --token TOKEN) [--deployment ID]");
    expect(help.stdout()).toContain("--forward-to URL");
  });

  test("without --deployment, a session that sees several deployments is shown them with their ids and asked to pick", async () => {
    const cli = switchyard(["listen", "--url", app.url, "--token", ada.token]);
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain("These credentials see several deployments; pass one with --deployment <id>:");
    expect(cli.stderr()).toMatch(new RegExp(`Ada's org / development +${ada.deploymentId}`));
    expect(cli.stderr()).toMatch(new RegExp(`Ada's org / production +${ada.productionDeploymentId}`));
  });

  test("names stored before control characters were refused print without their escape sequences", async () => {
    // Written straight to the database: the API refuses such names now (test/auth/names.test.ts).
    const poisoned = await createOperator(app, "Poisoned");
    // A deployment no request has read yet: access checks remember deployment rows (their names never
    // change through the API), so one renamed under them after a read would show its old name.
    const { id: deploymentId } = ok(await app.gql(ListenCreateDeployment, { organizationId: poisoned.organizationId }, { token: poisoned.token })).createDeployment;
    const osc8 = "\u001b]8;;https://evil.example/\u0007Innocent\u001b]8;;\u0007";
    await app.database.prisma.organization.update({ where: { id: poisoned.organizationId }, data: { name: `${osc8} \u009b2J\u202Eorg` } });
    await app.database.prisma.deployment.update({ where: { id: deploymentId }, data: { name: "dev\u001b[2J\u001b]52;c;ZXZpbA==\u0007\nFAKE LINE" } });
    const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

    const listing = switchyard(["listen", "--url", app.url, "--token", poisoned.token]);
    expect(await listing.exited).toBe(1);
    expect(listing.stderr()).toContain("These credentials see several deployments");
    expect(listing.stderr()).toMatch(/]8;;https:\/\/evil\.example\/Innocent]8;; 2Jorg \/ dev\[2J]52;c;ZXZpbA== FAKE LINE +\S+/);
    expect(listing.stderr()).not.toMatch(controls);
    expect(listing.stderr().split("\n").filter((line) => line.startsWith("FAKE LINE"))).toEqual([]);

    const cli = switchyard(["listen", "--url", app.url, "--token", poisoned.token, "--deployment", deploymentId]);
    await until(() => cli.stderr().includes("Ready.") || cli.child.exitCode !== null, "listen to connect", 30_000);
    expect(cli.stderr()).toContain(`Ready. Watching deployment "dev[2J]52;c;ZXZpbA== FAKE LINE" (${deploymentId}).`);
    expect(cli.stderr()).not.toMatch(controls);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(0);
  });

  test("after its connection is cut mid-stream, it resumes where it stopped: every event printed exactly once", async () => {
    // The server side drops listen's sockets (as a restart or a proxy timeout would) while events keep coming.
    const sockets = new Set<Duplex>();
    const track = (_request: unknown, socket: Duplex) => sockets.add(socket);
    app.server.on("upgrade", track);
    try {
      // No --deployment: an API key sees exactly one, and listen picks it.
      const cli = switchyard(["listen", "--url", app.url, "--api-key", ada.apiKey]);
      await until(() => cli.stderr().includes("Ready.") || cli.child.exitCode !== null, "listen to connect", 30_000);
      expect(cli.stderr()).toContain(`Ready. Watching deployment "development" (${ada.deploymentId})`);
      await until(() => app.app.bus.activeSubscriptions() === 2, "listen's subscriptions to start");

      const fired: string[] = [];
      for (let i = 0; i < 24; i++) {
        if (i === 8 || i === 16) for (const socket of sockets) socket.destroy();
        fired.push((await fireTestEvent(app, ada.deploymentId, { token: ada.token })).id);
      }
      await until(() => fired.every((id) => cli.stdout().includes(id)), "listen to print every event", 60_000);
      expect(cli.stderr()).toContain("Reconnected.");
      const printed = cli.stdout().split("\n").filter((line) => line.includes(" --> ")).map((line) => /\[(evt_\w+)\]/.exec(line)?.[1]);
      expect(printed).toEqual(fired);

      cli.child.kill("SIGINT");
      expect(await cli.exited).toBe(0);
    } finally {
      app.server.off("upgrade", track);
    }
  });
});

describe("switchyard", () => {
  test("--version prints the package's version", async () => {
    const cli = switchyard(["--version"]);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe(`switchyard ${JSON.parse(readFileSync("package.json", "utf8")).version}\n`);
  });

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

  // Two cold starts of the CLI and the embedded database, one after the other: slow on a busy machine.
  test("migrate says which migrations it applied, then that there is nothing to apply", { timeout: 240_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "switchyard-migrate-"));
    try {
      const migrate = switchyard(["migrate"], { DATA_DIR: dataDir, LOG_LEVEL: "warn" });
      expect(await migrate.exited).toBe(0);
      expect(migrate.stdout()).toMatch(new RegExp(`^Applied 0001_init(, \\d{4}_\\w+)* to the embedded database in ${dataDir}\\.\n$`));
      const again = switchyard(["migrate"], { DATA_DIR: dataDir, LOG_LEVEL: "warn" });
      expect(await again.exited).toBe(0);
      expect(again.stdout()).toBe(`Already up to date (the embedded database in ${dataDir}): nothing to apply.\n`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("switchyard trigger", () => {
  test("sends a test event through the pipeline and prints its id", async () => {
    const cli = switchyard(["trigger", "github.issue_opened", "--url", app.url, "--api-key", ada.apiKey]);
    expect(await cli.exited).toBe(0);
    const id = /event (evt_\w+), account test\./.exec(cli.stdout())?.[1];
    expect(cli.stdout()).toContain(`Sent github.issue_opened to deployment "development" (${ada.deploymentId})`);
    // The real pipeline: delivered to the forwarding URL with the printed id.
    await forwardingTarget.waitFor((requests) => requests.some((r) => r.headers["webhook-id"] === id));
  });

  test("a malformed or unknown trigger says so", async () => {
    const malformed = switchyard(["trigger", "issue_opened", "--url", app.url, "--api-key", ada.apiKey]);
    expect(await malformed.exited).toBe(1);
    expect(malformed.stderr()).toContain("Name one trigger as <connector>.<trigger>");
    const unknown = switchyard(["trigger", "github.no_such_trigger", "--url", app.url, "--api-key", ada.apiKey]);
    expect(await unknown.exited).toBe(1);
    expect(unknown.stderr()).toMatch(/no_such_trigger/);
  });
});
