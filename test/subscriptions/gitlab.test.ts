/**
 * GitLab project webhooks, end to end against a fake that follows the project webhooks API
 * (docs.gitlab.com/api/project_webhooks/): a connection names its project (`params[project_id]`);
 * Switchyard adds a hook on it with the account's token (`POST /projects/:id/hooks` with `url`,
 * `token` and one flag per event kind) and deletes it on disconnect; how it is looked up
 * (`GET /projects/:id/hooks/:hook_id`) and made again when GitLab answers 404 is in
 * remadeWhenGone.test.ts, beside the other providers' webhooks that never expire. GitLab sends
 * the hook's token in `X-Gitlab-Token` (docs.gitlab.com/user/project/integrations/webhooks/).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findConnector } from "../../src/connectors/registry.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { startDeclaredProvider, type FakeDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { fakeHooks } from "./fakeHooks.ts";
import { accountSubscriptions, storedEvents, disconnect, listTriggers, expectParamRefused } from "./helpers.ts";
import { GITLAB_PROJECT as PROJECT, gitlabDeliver as deliver, gitlabHookApi, gitlabHookPath, gitlabPush as push } from "./hookApis.ts";

const clock = fakeClock(new Date());
const gitlab = fakeHooks();

let fake: FakeDeclaredProvider;
let app: TestApp;
let ada: Operator;
let accountId: string;
let externalId: string;

beforeAll(async () => {
  fake = await startDeclaredProvider(findConnector("gitlab")!, { routes: gitlabHookApi(gitlab) });
  app = await startTestApp(fake.env(), { clock });
  ada = await createOperator(app);
  const triggers = ["push", "issue_opened", "issue_closed"].map((trigger) => ({ connector: "gitlab", trigger }));
  await listTriggers(app, ada, triggers);
  const account = await connectAccount(app, ada, { connector: "gitlab", account: "alice", provider: fake, params: { project_id: PROJECT } });
  accountId = account.id;
  externalId = account.externalId;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const gitlabEvents = () => storedEvents(app, ada, "gitlab");

describe("a GitLab connection naming its project", () => {
  test("the project id is a resource parameter: optional at connect (it names the first watched resource), and only digits", async () => {
    await expectParamRefused(app, ada.apiKey, "gitlab", "project_id", ["group/project", "12.5"]);
  });

  test("gets one project webhook, made with the account's token, for the listed triggers' event kinds", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await accountSubscriptions(app, ada, accountId)).toMatchObject([{ lastError: null }]);
    expect(gitlab.live()).toHaveLength(1);
    const [hook] = gitlab.live();
    expect(hook.owner).toBe(externalId);
    expect(hook.body).toMatchObject({ push_events: true, issues_events: true, tag_push_events: false, merge_requests_events: false, pipeline_events: false });
    expect(hook.body.url).toMatch(new RegExp(`^${app.url}/webhooks/${ada.deploymentId}/gitlab\\?subscription=psub_`));
    expect(hook.body.token).toMatch(/^.{24,}$/);
    const [sub] = await accountSubscriptions(app, ada, accountId);
    expect(sub).toMatchObject({ status: "ACTIVE", resource: `projects/${PROJECT}`, providerId: hook.id, expiresAt: null, lastError: null });
  });

  test("an event carrying the hook's token is forwarded, whoever acted in the project; a wrong or missing token is refused", async () => {
    const [hook] = gitlab.live();
    expect((await deliver(hook.body.url, push(77), hook.body.token)).status).toBe(200);
    const events = await gitlabEvents();
    expect(events.map((e) => [e.trigger, e.account])).toEqual([["push", "alice"]]);
    for (const token of ["not-the-hook-token", undefined]) expect((await deliver(hook.body.url, push(78), token)).status).toBe(401);
    // The token of this hook does not open another subscription's URL.
    expect((await deliver(hook.body.url.replace(/subscription=[^&]+/, "subscription=psub_unknown"), push(79), hook.body.token)).status).toBe(401);
    expect(await gitlabEvents()).toHaveLength(1);
  });

  test("deleted at GitLab on disconnect", async () => {
    const [hook] = gitlab.live();
    await disconnect(app, ada, accountId);
    expect(gitlab.made("DELETE").map((c) => [c.path, c.owner])).toEqual([[gitlabHookPath(hook.id), externalId]]);
    expect(gitlab.live()).toHaveLength(0);
    expect((await accountSubscriptions(app, ada, accountId)).every((s) => s.status === "DELETED")).toBe(true);
  });
});
