/**
 * A webhook that never expires is looked up at its provider by its id every 6 hours (not before),
 * with the account's token, and made again when the provider answers that it no longer has it
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
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import type { Route } from "../helpers/fakeProviders/oauthServer.ts";
import type { DeclaredIdentity } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks, type Hook } from "./fakeHooks.ts";
import { accountSubscriptions, listTriggers } from "./helpers.ts";
import {
  BITBUCKET_REPO,
  BITBUCKET_WORKSPACE,
  BOX_FOLDER,
  bitbucketDeliver,
  bitbucketHookApi,
  bitbucketHookPath,
  bitbucketPush,
  bitbucketSign,
  bitbucketUuidOf,
  boxHookApi,
  FIGMA_TEAM,
  figmaComment,
  figmaDeliver,
  figmaHookApi,
  GITLAB_PROJECT,
  gitlabDeliver,
  gitlabHookApi,
  gitlabHookPath,
  gitlabPush,
} from "./hookApis.ts";

const HOUR_MS = 60 * 60_000;

interface Provider {
  connector: string;
  api(hooks: ReturnType<typeof fakeHooks>): Route<DeclaredIdentity>[];
  env?: Record<string, string>;
  params: Record<string, string>;
  triggers: string[];
  /** The path Switchyard looks a hook up at. */
  lookUp(hook: Hook): string;
  /** The hook's id as the subscription records it. */
  providerId(hook: Hook): string;
  /** The hook taken away at the provider, among the live ones. */
  taken(live: Hook[]): Hook;
  /** Whether `hook` watches what `taken` watched (its replacement). */
  replaces(hook: Hook, taken: Hook): boolean;
  /** The status of a delivery to `to`'s URL carrying `credentials`'s own secret; absent where the app's key signs (Box). */
  deliver?(to: Hook, credentials: Hook): Promise<number>;
}

const only = (live: Hook[]) => live[0];
const PROVIDERS: Provider[] = [
  {
    connector: "gitlab",
    api: gitlabHookApi,
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
    api: bitbucketHookApi,
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
    api: boxHookApi,
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
    api: figmaHookApi,
    params: { team_id: FIGMA_TEAM },
    triggers: ["file_comment", "library_publish"],
    lookUp: (hook) => `/api/v2/webhooks/${hook.id}`,
    providerId: (hook) => hook.id,
    // One webhook per event type: one of the two goes, the other stays.
    taken: (live) => live.find((h) => h.body.event_type === "FILE_COMMENT")!,
    replaces: (hook, taken) => hook.body.event_type === taken.body.event_type,
    deliver: (to, credentials) => figmaDeliver(to.body.endpoint, figmaComment(to.id, credentials.body.passcode)),
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
    fake = await startDeclaredProvider(findConnector(provider.connector)!, { routes: provider.api(hooks) });
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

    clock.advance(5 * HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(hooks.made("GET")).toHaveLength(0);
    clock.advance(HOUR_MS);
    await app.app.subscriptions.runOnce(true);
    expect(hooks.made("GET").map((c) => [c.path, c.owner]).sort()).toEqual(before.map((h) => [provider.lookUp(h), externalId]).sort());
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
      // The old secret no longer opens anything; the new one does.
      expect(await provider.deliver(again, taken)).toBe(401);
      expect(await provider.deliver(again, again)).toBe(200);
    }
  });
});
