import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeDeclaredProvider, startDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { jsonReply } from "../helpers/fakeProviders/oauthServer.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, hookRoutes } from "../subscriptions/fakeHooks.ts";
import { listTriggers } from "../subscriptions/helpers.ts";

/**
 * The curl walk-through of docs/connections.md ("Watched resources"), exactly as written there,
 * against the service with a GitLab connection made without a project, and a fake of GitLab's
 * project webhooks API behind it: the connection watches nothing, then two projects, then one.
 */
const run = promisify(execFile);
const doc = readFileSync(new URL("../../docs/connections.md", import.meta.url), "utf8");
const walkThrough = /## Watched resources[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)?.[1];

const gitlab = fakeHooks();
let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  const routes = hookRoutes(gitlab, {
    methods: ["POST", "DELETE"],
    pattern: /^\/api\/api\/v4\/projects\/([^/]+)\/hooks(?:\/([^/]+))?$/,
    unauthorized: () => jsonReply(401, { message: "401 Unauthorized" }),
    handle({ method, body, grant, params: [project, hookId] }) {
      if (method === "POST") return jsonReply(201, { id: Number(gitlab.add(grant.identity.id, { ...body, project }).id), url: body.url });
      gitlab.hooks.delete(hookId);
      return { status: 204, body: "" };
    },
  });
  fake = await startDeclaredProvider(findConnector("gitlab")!, { routes });
  app = await startTestApp(fake.env());
  ada = await createOperator(app);
  await listTriggers(app, ada, [{ connector: "gitlab", trigger: "push" }]);
  await connectAccount(app, ada, { connector: "gitlab", account: "alice", provider: fake, params: {} });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

test("the walk-through watches two projects, lists them and stops watching the second; one project webhook is made", async () => {
  expect(walkThrough).toBeDefined();
  const { stdout } = await run("sh", ["-c", walkThrough!], { env: { PATH: process.env.PATH ?? "", SWITCHYARD_URL: app.url, SWITCHYARD_API_KEY: ada.apiKey } });
  const [connection, first, second, listed, status] = stdout.trim().split("\n");
  expect(JSON.parse(connection)).toMatchObject({ connector: "gitlab", account: "alice", watching: "NONE", resources: [] });
  expect(JSON.parse(first)).toMatchObject({ params: { project_id: "278964" } });
  expect(JSON.parse(second)).toMatchObject({ params: { project_id: "278965" } });
  expect((JSON.parse(listed) as { params: unknown }[]).map((r) => r.params)).toEqual([{ project_id: "278964" }, { project_id: "278965" }]);
  expect(status).toBe("204");
  await app.app.subscriptions.runOnce(true);
  expect(gitlab.live().map((h) => h.body.project)).toEqual(["278964"]);
});
