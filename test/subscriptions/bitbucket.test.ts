/**
 * Bitbucket repository webhooks, end to end against a fake that follows the webhooks API
 * (developer.atlassian.com/cloud/bitbucket/rest/api-group-webhooks/): a connection names its
 * repository (`params[workspace]`, `params[repo_slug]`); Switchyard adds a hook on it with the
 * account's token (`POST /repositories/{workspace}/{repo_slug}/hooks` with `url`, `events`,
 * `active` and a `secret`; the answer names it by its brace-wrapped `uuid`) and deletes it on
 * disconnect; how it is looked up (`GET …/hooks/{uid}`) and made again on a 404 is in
 * remadeWhenGone.test.ts. Deliveries carry `X-Hub-Signature: sha256=<hex HMAC-SHA256 of the body>`
 * keyed by the hook's secret (support.atlassian.com/bitbucket-cloud/docs/manage-webhooks/).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers } from "./helpers.ts";
import {
  BITBUCKET_REPO as REPO,
  BITBUCKET_WORKSPACE as WORKSPACE,
  bitbucketDeliver as deliver,
  bitbucketHookApi,
  bitbucketHookPath as hookPath,
  bitbucketPush as push,
  bitbucketSign as sign,
  bitbucketUuidOf as uuidOf,
} from "./hookApis.ts";

const clock = fakeClock(new Date());
const bitbucket = fakeHooks();

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("bitbucket")!, { routes: bitbucketHookApi(bitbucket) });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["repo_push", "pullrequest_created"].map((trigger) => ({ connector: "bitbucket", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "bitbucket", account: "alice", provider: fake, params: { workspace: WORKSPACE, repo_slug: REPO } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const bitbucketEvents = () => storedEvents(app, ada, "bitbucket");

describe("a Bitbucket connection naming its repository", () => {
  test("gets one repository webhook, made with the account's token, for the listed triggers' events, with a secret", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(bitbucket.live()).toHaveLength(1);
    const [hook] = bitbucket.live();
    expect(hook.owner).toBe(externalId);
    expect(hook.body).toMatchObject({ active: true });
    expect([...hook.body.events].sort()).toEqual(["pullrequest:created", "repo:push"]);
    expect(hook.body.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/bitbucket\\?subscription=psub_`));
    expect(hook.body.secret).toMatch(/^.{24,}$/);
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `repositories/${WORKSPACE}/${REPO}`, providerId: uuidOf(hook.id), expiresAt: null });
  });

  test("a delivery signed with the hook's secret is forwarded, whoever pushed; forged ones are refused", async () => {
    const [hook] = bitbucket.live();
    const body = push();
    expect((await deliver(hook.body.url, body, sign(body, hook.body.secret))).status).toBe(200);
    expect((await bitbucketEvents()).map((e) => [e.trigger, e.account])).toEqual([["repo_push", "alice"]]);
    const other = push();
    for (const signature of [sign(other, "not-the-hook-secret"), sign(body, hook.body.secret), undefined]) expect((await deliver(hook.body.url, other, signature)).status).toBe(401);
    expect(await bitbucketEvents()).toHaveLength(1);
  });

  test("deleted at Bitbucket on disconnect", async () => {
    const [hook] = bitbucket.live();
    await disconnect(app, ada, accountId);
    expect(bitbucket.made("DELETE").map((c) => [c.path, c.owner])).toEqual([[hookPath(uuidOf(hook.id)), externalId]]);
    expect(bitbucket.live()).toHaveLength(0);
  });
});
