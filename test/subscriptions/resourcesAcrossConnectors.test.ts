import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exampleValues, resourceParamsOf } from "../../src/connectors/params.ts";
import { findConnector } from "../../src/connectors/registry.ts";
import { connectAccount } from "../helpers/connectFlow.ts";
import { type FakeDeclaredProvider, startDeclaredProvider } from "../helpers/fakeProviders/declared.ts";
import { checkedFetch as fetch } from "../helpers/openapi.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";
import { accountSubscriptions, disconnect, listTriggers } from "./helpers.ts";

/**
 * Every OAuth connector whose subscriptions name a resource, with zero, one and two resources,
 * through the REST API: the subscriptions Switchyard plans follow the resources (one set per
 * resource, each resource showing its own; none where a required resource is missing), a removed
 * resource's subscriptions leave, and a disconnect leaves nothing live. What each provider is then
 * sent is its own test's story (gitlab.test.ts, bitbucket.test.ts, …): these fakes know no webhook
 * API, so the subscriptions stay PENDING with the provider's refusal as their error.
 */
const CASES: { connector: string; withoutResource: "NONE" | "ACCOUNT"; second: Record<string, string> }[] = [
  { connector: "airtable", withoutResource: "NONE", second: { base_id: "appZ9y8X7w6V5u4T3" } },
  { connector: "bitbucket", withoutResource: "NONE", second: { workspace: "acme", repo_slug: "web" } },
  { connector: "box", withoutResource: "NONE", second: { folder_id: "987654" } },
  { connector: "clickup", withoutResource: "NONE", second: { team_id: "42" } },
  { connector: "figma", withoutResource: "NONE", second: { team_id: "42" } },
  { connector: "monday", withoutResource: "NONE", second: { board_id: "42" } },
  { connector: "sharepoint", withoutResource: "NONE", second: { site_id: "00000000-0000-4000-8000-000000000042" } },
  { connector: "asana", withoutResource: "ACCOUNT", second: { project: "42" } },
  { connector: "typeform", withoutResource: "ACCOUNT", second: { form_id: "Zz42" } },
];

describe.each(CASES)("$connector", ({ connector, withoutResource, second }) => {
  const def = findConnector(connector)!;
  const first = exampleValues(resourceParamsOf(def.declaration.params));
  let fake: FakeDeclaredProvider;
  let app: TestApp;
  let ada: Operator;
  let connectionId: string;
  const base = () => `${app.url}/api/v1/connections/${connector}/alice`;
  const headers = () => ({ "x-api-key": ada.apiKey, "content-type": "application/json" });
  const live = async () => (await accountSubscriptions(app, ada, connectionId)).filter((s) => s.status !== "DELETED");

  beforeAll(async () => {
    fake = await startDeclaredProvider(def);
    app = await startTestApp(fake.env());
    ada = await createOperator(app);
    const triggers = [...new Set(def.declaration.subscription!.resources.flatMap((r) => Object.keys(r.triggers)))];
    await listTriggers(app, ada, triggers.map((trigger) => ({ connector, trigger })));
    connectionId = (await connectAccount(app, ada, { connector, account: "alice", provider: fake, params: {} })).id;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  test("zero, one and two resources; one removed; disconnected", async () => {
    await app.app.subscriptions.runOnce(true);
    expect(await (await fetch(base(), { headers: headers() })).json()).toMatchObject({ status: "ACTIVE", watching: withoutResource, resources: [] });
    // Without a resource: nothing where one is required; where optional, what the connector did before (asana and typeform: nothing).
    expect(await live()).toEqual([]);

    const made: string[] = [];
    for (const params of [first, second]) {
      const response = await fetch(`${base()}/resources`, { method: "POST", headers: headers(), body: JSON.stringify({ params }) });
      expect(response.status).toBe(201);
      made.push(((await response.json()) as { id: string }).id);
    }
    await app.app.subscriptions.runOnce(true);
    const resources = (await (await fetch(`${base()}/resources`, { headers: headers() })).json()) as { id: string; subscription: { id: string } | null }[];
    expect(resources.map((r) => r.id).sort()).toEqual([...made].sort());
    expect(resources.every((r) => r.subscription !== null)).toBe(true);
    const all = await live();
    const perResource = all.length / 2;
    expect(perResource).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(perResource)).toBe(true);
    expect((await (await fetch(base(), { headers: headers() })).json()) as { watching: string }).toMatchObject({ watching: "RESOURCES" });

    expect((await fetch(`${base()}/resources/${made[1]}`, { method: "DELETE", headers: headers() })).status).toBe(204);
    await app.app.subscriptions.runOnce(true);
    expect(await live()).toHaveLength(perResource);

    await disconnect(app, ada, connectionId);
    expect(await live()).toEqual([]);
  }, 60_000);
});
