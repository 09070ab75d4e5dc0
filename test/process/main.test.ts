import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, expect, test, vi } from "vitest";
import { connectAccount, openCredentialsForm, submitForm } from "../helpers/connectFlow.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { startFakeGitHub } from "../helpers/fakeProviders/github.ts";
import { createOperator } from "../helpers/operators.ts";
import { COMPILED_ENTRY, requireBuild, serviceProcess } from "../helpers/serviceProcess.ts";
import { scaled } from "../helpers/timing.ts";
import { startFakeGitHubApi } from "../proxy/fakeGitHubApi.ts";

// Starting a process compiles the TypeScript first: give each test room on a busy 2-core machine.
vi.setConfig({ testTimeout: scaled(120_000) });

/** The process as an operator runs it (`npm start`), on the embedded database or PostgreSQL. */
const database = await createTestDatabase();
afterAll(() => database.drop());

/** The built server (what `npm start` runs), with `nodeFlags` before its entry. */
function builtServer(settings: Record<string, string>, nodeFlags?: string[]) {
  requireBuild();
  return serviceProcess(settings, { entry: COMPILED_ENTRY, nodeFlags });
}

const env = (): Record<string, string> => (database.url ? { DATABASE_URL: database.url } : { DATA_DIR: mkdtempSync(join(tmpdir(), "sy-main-")) });

test("starts, prints where everything lives, keeps data across a restart and stops cleanly on SIGTERM", async () => {
  const service = await serviceProcess(env());
  await service.start();
  expect(service.output()).toContain(`GraphQL   ${service.url}/graphql`);
  expect(service.output()).toContain(`Console   ${service.url}/console`);
  expect(await (await fetch(`${service.url}/readyz`)).json()).toMatchObject({ status: "ready" });

  const { client } = service;
  const signUp = await client.gql(`mutation { signUp(email: "keep@example.com", password: "still here after", name: "K") { token } }`);
  const token = (signUp.data as { signUp: { token: string } }).signUp.token;
  await client.gql(`mutation { createOrganization(name: "Durable") { id } }`, {}, { token });

  expect(await service.stop()).toBe(0);

  await service.start();
  const logIn = await client.gql(`mutation { logIn(email: "keep@example.com", password: "still here after") { token } }`);
  const again = (logIn.data as { logIn: { token: string } }).logIn.token;
  const organizations = await client.gql(`{ organizations { name deployments { name } } }`, {}, { token: again });
  expect(organizations.data).toEqual({ organizations: [{ name: "Durable", deployments: [{ name: "development" }, { name: "production" }] }] });
  expect(await service.stop()).toBe(0);
});

test("the built server (what npm start runs) serves the console's GraphQL and forwards a test event", async () => {
  // dist/ is bundled (scripts/build-server.ts): what it bundles and what it leaves in node_modules
  // (Prisma's runtime in, its query compiler out) is only proven by running it.
  const settings = env();
  const service = await builtServer(settings);
  const received: Array<string | undefined> = [];
  const receiver = createServer((req, res) => {
    req.resume().on("end", () => {
      received.push(req.headers["webhook-id"] as string | undefined);
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    await service.start();
    const { client } = service;
    const signUp = await client.gql(`mutation { signUp(email: "built@example.com", password: "the bundled server", name: "B") { token } }`);
    const token = (signUp.data as { signUp: { token: string } }).signUp.token;
    const created = await client.gql(`mutation { createOrganization(name: "Built") { deployments { id name } } }`, {}, { token });
    const deploymentId = (created.data as { createOrganization: { deployments: { id: string; name: string }[] } }).createOrganization.deployments[0].id;
    const forwardingUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const saved = await client.gql(
      `mutation($d: ID!, $i: ForwardingSettingsInput!) { saveForwardingSettings(deploymentId: $d, input: $i) { forwardingUrl } }`,
      { d: deploymentId, i: { forwardingUrl, triggers: [] } },
      { token },
    );
    expect(saved.errors).toBeUndefined();
    const sent = await client.gql(
      `mutation($d: ID!) { sendTestEvent(deploymentId: $d, trigger: { connector: "github", trigger: "issue_opened" }) { id } }`,
      { d: deploymentId },
      { token },
    );
    const eventId = (sent.data as { sendTestEvent: { id: string } }).sendTestEvent.id;
    await vi.waitFor(() => expect(received).toEqual([eventId]), { timeout: scaled(20_000), interval: 100 });
    expect(await service.stop()).toBe(0);
    if (settings.DATA_DIR) {
      // A new data folder is a copy of the build's template (scripts/build-pgdata.ts), which holds the
      // one database the service opens: a first start copies no initdb template databases.
      const pglite = new PGlite(join(settings.DATA_DIR, "pgdata"));
      const { rows } = await pglite.query<{ datname: string }>("select datname from pg_database order by datname");
      await pglite.close();
      expect(rows.map((row) => row.datname)).toEqual(["postgres"]);
    }
  } finally {
    await service.kill9();
    receiver.close();
  }
});

test("the built server connects an account through the hosted flow and proxies a call with its token", async () => {
  // The proxy's agent, like the delivery worker's, is a lazyAgent that loads undici from its chunk of
  // the bundle on the first call (src/net/undici.ts): proven here through dist/, not only in src/.
  const github = await startFakeGitHub({ autoApprove: true });
  const api = await startFakeGitHubApi(github);
  const service = await builtServer({ ...env(), ...github.env(), CONNECTOR_GITHUB_API_URL: api.url });
  try {
    await service.start();
    const ada = await createOperator(service.client);
    await connectAccount(service.client, ada, { connector: "github", account: "alice", provider: github });
    const response = await fetch(`${service.url}/api/v1/proxy/github/alice/user`, { headers: { "x-api-key": ada.apiKey } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ login: expect.any(String), type: "User" });
    // The provider saw the connection's own token, never the operator's key.
    const call = api.seen.find((seen) => seen.url === "/user");
    expect(call?.token).toBe(github.grants.at(-1)?.accessToken);
    expect(JSON.stringify(call?.headers)).not.toContain(ada.apiKey);
    expect(await service.stop()).toBe(0);
  } finally {
    await service.kill9();
    await api.close();
    await github.close();
  }
});

test("the built server checks a store's credentials through the guarded client, and refuses a store on this machine", async () => {
  // A WooCommerce store is a host its tenant names: in production the credential check dials it
  // through undici's fetch on the agent that checks each address (src/net/undici.ts, lazyAgent.fetch).
  // The store's name resolves to 127.0.0.1 here (test/helpers/dnsStandIn.mjs); a bundle that broke
  // that fetch would say "could not be reached" instead.
  const service = await builtServer(
    // Sign-up open: on PostgreSQL this file's tests share one database, and earlier ones made users.
    { ...env(), NODE_ENV: "production", SIGNUP: "open", DNS_STAND_IN: JSON.stringify({ "shop.example.com": "127.0.0.1" }) },
    ["--import", fileURLToPath(new URL("../helpers/dnsStandIn.mjs", import.meta.url))],
  );
  await service.start();
  try {
    const ada = await createOperator(service.client, "Ada");
    const form = await openCredentialsForm(service.client, ada.apiKey, "woocommerce", "store-owner", { "params[store]": "shop.example.com" });
    const checked = await submitForm(form, { consumer_key: `ck_${"a".repeat(40)}`, consumer_secret: `cs_${"b".repeat(40)}` });
    expect(checked.body).toContain("refused: private address");
    expect(checked.body).toContain("Nothing was stored");
  } finally {
    await service.stop();
  }
});

test("a start of the built server loads neither GraphQL nor undici (the first request that needs them does), nor zod's translations", () => {
  // docs/decisions.md ("The server is bundled"): each was a large part of a start's main thread. A
  // static import of either anywhere main.js or app.js reach statically would put it back in every
  // start; the chunks' source maps name what each holds. zod's messages in other languages (300 kB
  // of source) come with `import { z } from "zod"`, which hands over zod's whole namespace; `import *
  // as z` lets the bundler keep what is used, English messages among it.
  requireBuild();
  const loadedAtStart = new Set<string>();
  const follow = (file: string) => {
    if (loadedAtStart.has(file)) return;
    loadedAtStart.add(file);
    for (const [, relative] of readFileSync(file, "utf8").matchAll(/(?:import|from)\s*"(\.\.?\/[^"]+)"/g)) follow(resolve(dirname(file), relative));
  };
  follow(COMPILED_ENTRY);
  follow(join(dirname(COMPILED_ENTRY), "app.js"));
  const sources = [...loadedAtStart].flatMap((file) => (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources);
  expect(sources.some((source) => source.endsWith("src/app.ts"))).toBe(true);
  expect(sources.filter((source) => /node_modules\/(undici|graphql|graphql-yoga|@pothos\/core)\//.test(source) || source.includes("src/graphql/schema"))).toEqual([]);
  expect(sources.filter((source) => source.includes("zod/v4/locales/")).map((source) => source.replace(/^.*\//, ""))).toEqual(["en.js"]);
});

test.skipIf(database.url !== undefined)("a second process on the same embedded database refuses to start, saying why", async () => {
  const settings = env();
  const first = await serviceProcess(settings);
  await first.start();
  try {
    const second = await serviceProcess(settings);
    await expect(second.start()).rejects.toThrow(/Another Switchyard process \(pid \d+\) is using the embedded database/);
  } finally {
    await first.stop();
  }
});

test.skipIf(database.url !== undefined)("on the embedded database (no autovacuum) the process vacuums its tables every VACUUM_INTERVAL", async () => {
  // PGlite runs PostgreSQL without autovacuum: the app's own job (src/db/vacuumJob.ts) is all there is,
  // and only main.ts starts it. A server's autovacuum is left to do it (test/db/vacuumJob.test.ts).
  const service = await serviceProcess({ ...env(), LOG_LEVEL: "debug", VACUUM_INTERVAL: "1s" });
  try {
    await service.start();
    const { client } = service;
    const signUp = await client.gql(`mutation { signUp(email: "vacuum@example.com", password: "dead rows go", name: "V") { token } }`);
    const token = (signUp.data as { signUp: { token: string } }).signUp.token;
    const created = await client.gql(`mutation { createOrganization(name: "Busy") { deployments { id } } }`, {}, { token });
    const deploymentId = (created.data as { createOrganization: { deployments: { id: string }[] } }).createOrganization.deployments[0].id;
    // Past PostgreSQL's analyze threshold for trigger_event: 50 rows plus a tenth of the table.
    for (let n = 0; n < 60; n++) {
      const sent = await client.gql(
        `mutation($d: ID!) { sendTestEvent(deploymentId: $d, trigger: { connector: "github", trigger: "issue_opened" }) { id } }`,
        { d: deploymentId },
        { token },
      );
      expect(sent.errors).toBeUndefined();
    }
    await vi.waitFor(() => expect(service.output()).toMatch(/"table":"public\.trigger_event","action":"(vacuum|analyze)".*"msg":"database table maintained"/), {
      timeout: scaled(30_000),
      interval: 200,
    });
    expect(await service.stop()).toBe(0);
  } finally {
    await service.kill9();
  }
});

test("a bad configuration stops start-up with a message naming the variable", async () => {
  const service = await serviceProcess({ ...env(), DELIVERY_RETRY_SCHEDULE: "soon" });
  await expect(service.start()).rejects.toThrow(/DELIVERY_RETRY_SCHEDULE: "soon" is not a duration/);
  const tooOften = await serviceProcess({ ...env(), VACUUM_INTERVAL: "10ms" });
  await expect(tooOften.start()).rejects.toThrow(/VACUUM_INTERVAL: "10ms" is shorter than 1s/);
});

test("the built server words a bad setting in zod's English, the one language the bundle keeps", async () => {
  const unknownLevel = await builtServer({ ...env(), LOG_LEVEL: "loud" });
  await expect(unknownLevel.start()).rejects.toThrow(/LOG_LEVEL: Invalid option: expected one of "fatal"\|"error"/);
});
