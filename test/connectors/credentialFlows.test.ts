/**
 * Every API_KEY and BASIC connector in the registry, connected end to end through the hosted flow
 * against a fake made from its declaration (test/helpers/fakeProviders/credentialed.ts): auth-url
 * (no OAuth client needed) → Continue → consent (the deployment has not configured the connector)
 * → the credentials form with the declared fields → a wrong credential refused on the page with
 * nothing stored → a field that does not fit its pattern marked on the page → the right one
 * connected: externalId from the test request, the credential sealed, connection_created, and the
 * token endpoint and the proxy using it in the declared style.
 * A connector added to providers/index.ts is covered here without touching this file.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { allConnectors } from "../../src/connectors/registry.ts";
import type { ConnectorDefinition } from "../../src/connectors/types.ts";
import { exampleValues } from "../../src/connectors/params.ts";
import { startCredentialedProvider, type FakeCredentialedProvider } from "../helpers/fakeProviders/credentialed.ts";
import { connectedAccounts, openCredentialsForm, submitForm, type Hop } from "../helpers/connectFlow.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

const catalog = allConnectors();

const connectors = catalog.filter((def) => def.authMode === "API_KEY" || def.authMode === "BASIC");
const fakes = new Map<string, FakeCredentialedProvider>();
let app: TestApp;
let ada: Operator;

beforeAll(async () => {
  for (const def of connectors) fakes.set(def.name, await startCredentialedProvider(def));
  app = await startTestApp(Object.assign({}, ...[...fakes.values()].map((f) => f.env())));
  ada = await createOperator(app, "Ada");
}, 120_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([...fakes.values()].map((f) => f.close()));
});

/** auth-url → Continue → consent Continue → the credentials form page. */
function openForm(def: ConnectorDefinition, account: string): Promise<Hop> {
  const params = Object.fromEntries(Object.entries(exampleValues(def.declaration.params)).map(([name, value]) => [`params[${name}]`, value]));
  return openCredentialsForm(app, ada.apiKey, def.name, account, params);
}

const stored = (connector: string, account: string) => app.database.prisma.connectedAccount.findFirst({ where: { connector, account } });

describe.each(connectors.map((def) => [def.name, def] as [string, ConnectorDefinition]))("%s", (name, def) => {
  const decl = def.declaration.credentials!;

  test("the form asks for the declared fields; a wrong credential is refused on the page and nothing is stored; the right one connects", async () => {
    const fake = fakes.get(name)!;
    const form = await openForm(def, "alice");
    expect(form.status).toBe(200);
    for (const field of decl.fields) {
      expect(form.body).toContain(`<label for="field-${field.name}">`);
      expect(form.body).toMatch(new RegExp(`name="${field.name}" type="${field.secret ? "password" : "text"}"`));
    }
    expect(form.body).toContain(`href="${decl.whereToFind}"`);

    const wrong = Object.fromEntries(decl.fields.map((f) => [f.name, f.secret ? `${fake.fields[f.name].slice(0, -1)}${fake.fields[f.name].endsWith("0") ? "1" : "0"}` : fake.fields[f.name]]));
    const refused = await submitForm(form, wrong);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain(`refused by ${def.displayName}`);
    expect(refused.body).toContain('role="alert"');
    // A secret is never sent back to the browser.
    for (const field of decl.fields.filter((f) => f.secret)) expect(refused.body).not.toContain(wrong[field.name]);
    expect(await stored(name, "alice")).toBeNull();

    const done = await submitForm(refused, fake.fields);
    expect(done.status, done.body.slice(0, 500)).toBe(200);
    expect(done.body).toContain(`Your ${def.displayName} account is connected`);
    const account = (await connectedAccounts(app, ada)).find((a) => a.connector === name && a.account === "alice");
    expect(account).toMatchObject({ externalId: fake.identity.id, status: "ACTIVE" });
    const row = (await stored(name, "alice"))!;
    // A provider whose test answer names no account (OpenAI's model list) leaves the name empty.
    expect(row.displayName).toBe(decl.test.displayNamePath ? fake.identity.displayName : null);
    expect(row.accessTokenEncrypted).not.toContain(fake.credential);
    expect(row.refreshTokenEncrypted).toBeNull();
    expect(await app.database.prisma.triggerEvent.count({ where: { connector: "switchyard", trigger: "connection_created", connectedAccountId: row.id } })).toBe(1);
    // The test request carried the credential in the declared style (the fake answers it only so).
    expect(fake.requests.filter((r) => r.method === decl.test.method && r.authorized)).not.toHaveLength(0);
  });

  test("the token endpoint hands out the credential with its type; the proxy sends it in the declared style", async () => {
    const fake = fakes.get(name)!;
    const token = await fetch(`${app.url}/api/v1/connections/${name}/alice/token`, { headers: { "x-api-key": ada.apiKey } });
    expect(token.status).toBe(200);
    expect(await token.json()).toEqual({ accessToken: fake.credential, tokenType: def.authMode === "BASIC" ? "Basic" : "ApiKey", expiresAt: null, scopes: [] });

    const proxied = await fetch(`${app.url}/api/v1/proxy/${name}/alice/some/resource`, { headers: { "x-api-key": ada.apiKey } });
    expect(proxied.status).toBe(200);
    expect(await proxied.json()).toEqual({ proxied: "/some/resource" });
    expect(fake.requests.at(-1)).toMatchObject({ path: expect.stringMatching(/\/some\/resource$/), authorized: true });
  });

  test("a field that does not fit is marked on the page (aria-invalid, its message tied to it) and the provider is not asked", async () => {
    const fake = fakes.get(name)!;
    const form = await openForm(def, "bob");
    const asked = fake.requests.length;
    const empty = await submitForm(form, Object.fromEntries(decl.fields.map((f) => [f.name, ""])));
    expect(empty.status).toBe(400);
    for (const field of decl.fields) {
      expect(empty.body).toContain(`aria-describedby="field-${field.name}-help field-${field.name}-error" aria-invalid="true"`);
      expect(empty.body).toContain(`<p class="field-error" id="field-${field.name}-error">Enter your ${field.label}.</p>`);
    }
    expect(fake.requests.length).toBe(asked);
    expect(await stored(name, "bob")).toBeNull();
  });
});

test("auth-url needs no OAuth client for API_KEY and BASIC connectors", async () => {
  const def = connectors[0];
  const response = await fetch(`${app.url}/api/v1/connector/service/${def.name}/auth-url?account=zed&${new URLSearchParams(Object.entries(exampleValues(def.declaration.params)).map(([n, v]) => [`params[${n}]`, v]))}`, {
    headers: { "x-api-key": ada.apiKey },
  });
  expect(response.status).toBe(200);
});
