/**
 * A webhook that never expires is looked up at its provider every 6 hours (not before), with the
 * account's token — by its id, or in the list of the caller's webhooks where the provider has no
 * read of one (ClickUp, Pipedrive, monday) — and made again when the provider no longer has it
 * (someone removed it in the provider's settings, or the provider dropped it after failed
 * deliveries): the new one is the subscription's, the others stay, and the old one's secret opens
 * nothing any more. One story, one row per provider, each on its own app and clock against the
 * fake of its webhook API (./hookApis.ts); how each provider's webhooks are made, signed and
 * deleted is in its own test file.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type DeclaredProviderOptions, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, type Hook, type HookCall } from "./fakeHooks.ts";
import { accountSubscriptions, listTriggers } from "./helpers.ts";
import {
  BITBUCKET_REPO,
  BITBUCKET_WORKSPACE,
  basicAuth,
  BOX_FOLDER,
  bitbucketDeliver,
  bitbucketHookApi,
  bitbucketHookPath,
  bitbucketPush,
  bitbucketSign,
  bitbucketUuidOf,
  boxHookApi,
  CLICKUP_TEAM,
  clickupDeliver,
  clickupHookApi,
  clickupListPath,
  clickupSign,
  clickupTaskCreated,
  FIGMA_TEAM,
  figmaComment,
  figmaDeliver,
  figmaHookApi,
  GITLAB_PROJECT,
  gitlabDeliver,
  gitlabHookApi,
  gitlabHookPath,
  gitlabPush,
  isMondayList,
  MONDAY_BOARD,
  mondayDeliver,
  mondayHookApi,
  mondayItemCreated,
  mondayJwt,
  PIPEDRIVE_LIST_PATH,
  pipedriveDeliver,
  pipedriveHookApi,
} from "./hookApis.ts";

const HOUR_MS = 60 * 60_000;

interface Provider {
  connector: string;
  /** The fake provider's webhook API. */
  fake(hooks: ReturnType<typeof fakeHooks>): DeclaredProviderOptions;
  env?: Record<string, string>;
  params: Record<string, string>;
  triggers: string[];
  /** Where Switchyard looks a hook up: its path, or the list it is in. */
  lookUp(hook: Hook): string;
  /** What a call to the fake looked up (undefined: not a look-up); by default every GET, its path. */
  lookedUp?(call: HookCall): string | undefined;
  /** The hook's id as the subscription records it. */
  providerId(hook: Hook): string;
  /** The hook taken away at the provider, among the live ones. */
  taken(live: Hook[]): Hook;
  /** Whether `hook` watches what `taken` watched (its replacement). */
  replaces(hook: Hook, taken: Hook): boolean;
  /**
   * The status of a delivery to `to`'s URL carrying `credentials`'s own secret, or, where the app's
   * key signs (`appSigned`), that key's token issued at `now` on the app's clock.
   */
  deliver?(to: Hook, credentials: Hook, now: Date): Promise<number>;
  appSigned?: boolean;
}

const only = (live: Hook[]) => live[0];
const sameEvents = (a: string[], b: string[]) => [...a].sort().join() === [...b].sort().join();
const MONDAY_SECRET = "monday-app-signing-secret";
const lookedUpByGet = (call: HookCall) => (call.method === "GET" ? call.path : undefined);
const PROVIDERS: Provider[] = [
  {
    connector: "gitlab",
    fake: (hooks) => ({ routes: gitlabHookApi(hooks) }),
    params: { project_id: GITLAB_PROJECT },
    triggers: ["push", "issue_opened", "issue_closed"],
    lookUp: (hook) => gitlabHookPath(hook.id),
    providerId: (hook) => hook.id,
    taken: only,
    replaces: () => true,
    deliver: (to, credentials) => gitlabDeliver(to.body.url, gitlabPush(80), credentials.body.token).then((r) => r.status),
  },
  {
    connector: "bitbucket",
    fake: (hooks) => ({ routes: bitbucketHookApi(hooks) }),
    params: { workspace: BITBUCKET_WORKSPACE, repo_slug: BITBUCKET_REPO },
    triggers: ["repo_push", "pullrequest_created"],
    lookUp: (hook) => bitbucketHookPath(bitbucketUuidOf(hook.id)),
    providerId: (hook) => bitbucketUuidOf(hook.id),
    taken: only,
    replaces: () => true,
    deliver: (to, credentials) => {
      const body = bitbucketPush();
      return bitbucketDeliver(to.body.url, body, bitbucketSign(body, credentials.body.secret)).then((r) => r.status);
    },
  },
  {
    connector: "box",
    fake: (hooks) => ({ routes: boxHookApi(hooks) }),
    env: { CONNECTOR_BOX_WEBHOOK_SECRET: "box-primary-signature-key" },
    params: { folder_id: BOX_FOLDER },
    triggers: ["file_uploaded", "comment_created"],
    lookUp: (hook) => `/api/2.0/webhooks/${hook.id}`,
    providerId: (hook) => hook.id,
    taken: only,
    replaces: () => true,
  },
  {
    connector: "figma",
    fake: (hooks) => ({ routes: figmaHookApi(hooks) }),
    params: { team_id: FIGMA_TEAM },
    triggers: ["file_comment", "library_publish"],
    lookUp: (hook) => `/api/v2/webhooks/${hook.id}`,
    providerId: (hook) => hook.id,
    // One webhook per event type: one of the two goes, the other stays.
    taken: (live) => live.find((h) => h.body.event_type === "FILE_COMMENT")!,
    replaces: (hook, taken) => hook.body.event_type === taken.body.event_type,
    deliver: (to, credentials) => figmaDeliver(to.body.endpoint, figmaComment(to.id, credentials.body.passcode)),
  },
  {
    connector: "clickup",
    fake: (hooks) => ({ routes: clickupHookApi(hooks) }),
    params: { team_id: CLICKUP_TEAM },
    triggers: ["task_created", "task_comment_posted"],
    lookUp: () => clickupListPath,
    providerId: (hook) => hook.id,
    taken: only,
    replaces: (hook, taken) => sameEvents(hook.body.events, taken.body.events),
    deliver: (to, credentials) => {
      const body = clickupTaskCreated(to.id);
      return clickupDeliver(to.body.endpoint, body, clickupSign(body, credentials.body.secret));
    },
  },
  {
    connector: "pipedrive",
    fake: (hooks) => ({ routes: pipedriveHookApi(hooks) }),
    params: {},
    triggers: ["deal_created", "lead_created"],
    lookUp: () => PIPEDRIVE_LIST_PATH,
    providerId: (hook) => hook.id,
    // One webhook per action and object: the lead's goes, the deal's stays.
    taken: (live) => live.find((h) => h.body.event_object === "lead")!,
    replaces: (hook, taken) => hook.body.event_action === taken.body.event_action && hook.body.event_object === taken.body.event_object,
    deliver: (to, credentials) => pipedriveDeliver(to.body.subscription_url, to.body.event_action, to.body.event_object, basicAuth("switchyard", credentials.body.http_auth_password)),
  },
  {
    connector: "monday",
    // Its GraphQL API shares the identity's POST /v2.
    fake: (hooks) => ({ before: mondayHookApi(hooks) }),
    env: { CONNECTOR_MONDAY_WEBHOOK_SECRET: MONDAY_SECRET },
    params: { board_id: MONDAY_BOARD },
    triggers: ["item_created", "column_value_changed"],
    lookUp: () => `/api/v2 webhooks(board_id: ${MONDAY_BOARD})`,
    lookedUp: (call) => (isMondayList(call.body) ? `${call.path} webhooks(board_id: ${call.body.variables.board})` : undefined),
    providerId: (hook) => hook.id,
    // One webhook per event type: the new item's goes, the column's stays.
    taken: (live) => live.find((h) => h.body.variables.event === "create_item")!,
    replaces: (hook, taken) => hook.body.variables.event === taken.body.variables.event,
    deliver: (to, _credentials, now) => mondayDeliver(to.body.variables.url, mondayItemCreated(), mondayJwt(MONDAY_SECRET, now)),
    appSigned: true,
  },
];

describe.each(PROVIDERS)("a $connector webhook", (provider) => {
  const clock = fakeClock(new Date());
  const hooks = fakeHooks();
  let fake: FakeDeclaredProvider;
  let app: TestApp;
  let ada: Operator;
  let accountId: string;
  let externalId: string;

  beforeAll(async () => {
    fake = await startDeclaredProvider(findConnector(provider.connector)!, provider.fake(hooks));
    app = await startTestApp({ ...fake.env(), ...provider.env }, { clock });
    ada = await createOperator(app);
    await listTriggers(app, ada, provider.triggers.map((trigger) => ({ connector: provider.connector, trigger })));
    const account = await connectAccount(app, ada, { connector: provider.connector, account: "alice", provider: fake, params: provider.params });
    accountId = account.id;
    externalId = account.externalId;
    await app.app.subscriptions.runOnce(true);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  test("looked up every 6 hours; made again when the provider no longer has it", async () => {
    const before = hooks.live();
    expect(before.length).toBeGreaterThan(0);
    const ids = (list: Hook[]) => list.map((h) => h.id).sort();
    const lookedUp = provider.lookedUp ?? lookedUpByGet;
    const lookUps = () => hooks.calls.filter((c) => lookedUp(c) !== undefined).map((c) => [lookedUp(c), c.owner]);

    clock.advance(5 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(lookUps()).toHaveLength(0);
    clock.advance(HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    // One look per subscription, with the account's token.
    expect(lookUps().sort()).toEqual(before.map((h) => [provider.lookUp(h), externalId]).sort());
    expect(ids(hooks.live())).toEqual(ids(before));

    const taken = provider.taken(before);
    hooks.hooks.delete(taken.id);
    clock.advance(6 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    const live = hooks.live();
    expect(live).toHaveLength(before.length);
    const again = live.find((h) => provider.replaces(h, taken))!;
    expect(again.id).not.toBe(taken.id);
    expect(again.owner).toBe(externalId);
    // The others are kept as they were.
    expect(ids(live.filter((h) => h !== again))).toEqual(ids(before.filter((h) => h !== taken)));
    const subs = (await accountSubscriptions(app, ada, accountId)).filter((s) => s.status !== "DELETED");
    expect(subs.map((s) => [s.providerId, s.status, s.lastError]).sort()).toEqual(live.map((h) => [provider.providerId(h), "ACTIVE", null]).sort());

    if (provider.deliver) {
      // The old secret no longer opens anything; the new one does (the app's key, where it signs).
      if (!provider.appSigned) expect(await provider.deliver(again, taken, clock.now())).toBe(401);
      expect(await provider.deliver(again, again, clock.now())).toBe(200);
    }
  });
});
