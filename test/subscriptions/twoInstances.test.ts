/**
 * Two instances on one PostgreSQL share the subscription work through the database alone: planning
 * and working at the same time they make one subscription per account and resource, renew each
 * once, and when one stops mid-renewal (its lease runs out) the other takes the rows over; the
 * stuck instance's late answer records nothing. PostgreSQL only (PGlite is one process per database).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { type App, buildApp } from "../../src/app.ts";
import { type Database, openDatabase } from "../../src/db/database.ts";
import { createLogger } from "../../src/log.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { fakeClock } from "../helpers/clock.ts";
import { startFakeMicrosoftGraph, type FakeMicrosoftGraph } from "../helpers/fakeProviders/microsoftGraph.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
if (!onPostgres) console.log("twoInstances.test.ts: skipped on PGlite; set TEST_DATABASE_URL to run it.");

const clock = fakeClock(new Date());
const LIFETIME_MS = 4 * 60 * 60_000;
const ACCOUNTS = ["alice", "bob", "carol", "dave"];
let fake: FakeMicrosoftGraph;
let app: TestApp;
let second: Database | undefined;
let secondApp: App | undefined;
let ada: Operator;

beforeAll(async () => {
  if (!onPostgres) return;
  fake = await startFakeMicrosoftGraph({ clock, maxLifetimeMs: LIFETIME_MS });
  app = await startTestApp(fake.env(), { clock });
  second = await openDatabase({ kind: "postgresql", url: app.databaseUrl!, poolSize: 5 }, createLogger("silent"));
  secondApp = buildApp({ config: app.app.config, logger: createLogger("silent"), database: second, clock });
  ada = await createOperator(app);
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers: [{ connector: "microsoft", trigger: "message_received" }] } }, { token: ada.token }));
  for (const account of ACCOUNTS) {
    fake.setIdentity({ id: `${account}-id`, displayName: account });
    await connectAccount(app, ada, { connector: "microsoft", account, provider: fake });
  }
}, 120_000);

afterAll(async () => {
  if (!onPostgres) return;
  await secondApp?.close();
  await second?.close();
  await app?.close();
  await fake?.close();
});

const both = (force = true) => Promise.all([app.app.subscriptions.runOnce(force), secondApp!.subscriptions.runOnce(force)]);
const rows = () =>
  app.database.sql.query<{ id: string; connected_account_id: string; status: string; provider_id: string; last_renewed_at: Date }>(
    `select id, connected_account_id, status::text as status, provider_id, last_renewed_at from provider_subscription order by id`,
  );

test.skipIf(!onPostgres)("planning and working on both instances at once makes one subscription per account, and renews each once", async () => {
  await Promise.all([both(), both(), both()]);
  expect(fake.live()).toHaveLength(ACCOUNTS.length);
  expect(fake.subscriptions).toHaveLength(ACCOUNTS.length);
  const made = await rows();
  expect(made).toHaveLength(ACCOUNTS.length);
  expect(new Set(made.map((r) => r.connected_account_id)).size).toBe(ACCOUNTS.length);
  expect(made.every((r) => r.status === "ACTIVE")).toBe(true);

  clock.advance(LIFETIME_MS * 0.76);
  await Promise.all([both(), both()]);
  expect(fake.patches.slice().sort()).toEqual(made.map((r) => r.provider_id).sort());
});

test.skipIf(!onPostgres)("an instance stuck mid-renewal loses its rows when its lease runs out; the other renews them, and the stuck one records nothing", async () => {
  const renewalsRecordedByFirst = async () =>
    Number(/switchyard_subscription_operations_total\{connector="microsoft",operation="renew",outcome="success"\} (\d+)/.exec(await (await fetch(`${app.url}/metrics`)).text())?.[1] ?? 0);
  const recordedBefore = await renewalsRecordedByFirst();
  const release = fake.holdPatches();
  clock.advance(LIFETIME_MS * 0.76);
  const stuck = app.app.subscriptions.runOnce(true);
  await expect.poll(() => fake.patches.length, { timeout: 10_000 }).toBe(ACCOUNTS.length * 2);
  // Leased by the stuck instance: the other finds nothing to do.
  expect(await secondApp!.subscriptions.runOnce(true)).toBe(0);

  clock.advance(61_000);
  const renewedBy = clock.now().getTime();
  const takeover = secondApp!.subscriptions.runOnce(true);
  await expect.poll(() => fake.patches.length, { timeout: 10_000 }).toBe(ACCOUNTS.length * 3);
  // Both answers arrive now: the stuck instance's first, which no longer holds the lease.
  release();
  await stuck;
  expect(await takeover).toBe(ACCOUNTS.length);
  const after = await rows();
  expect(after.every((r) => r.status === "ACTIVE" && new Date(r.last_renewed_at).getTime() === renewedBy)).toBe(true);
  expect(fake.live()).toHaveLength(ACCOUNTS.length);
  // The stuck instance's renewals reached Graph (harmless) but were not recorded: its lease was gone.
  expect(await renewalsRecordedByFirst()).toBe(recordedBefore);
});
