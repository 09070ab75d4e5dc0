import { afterAll, beforeAll, expect } from "vitest";
import { exampleValues } from "../../src/connectors/params.ts";
import type { ConnectorDefinition } from "../../src/connectors/types.ts";
import { connectAccount, connectedAccounts, openCredentialsForm, requestAuthUrl, submitForm, type ConnectedAccountView } from "../helpers/connectFlow.ts";
import type { Clock } from "../../src/clock.ts";
import { startFakeGoogleCalendar } from "../helpers/fakeProviders/googleCalendar.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { SaveForwardingSettings } from "../helpers/forwarding.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

export interface SubscriptionView {
  id: string;
  resource: string;
  events: string[];
  status: "PENDING" | "ACTIVE" | "FAILED" | "DELETED";
  providerId: string | null;
  expiresAt: string | null;
  lastRenewedAt: string | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

/** The connection's subscriptions as GraphQL shows them, newest first. */
export async function accountSubscriptions(app: TestApp, operator: Pick<Operator, "token" | "deploymentId">, accountId: string): Promise<SubscriptionView[]> {
  const data = ok(
    await app.gql<{ deployment: { connectedAccounts: Array<{ id: string; subscriptions: SubscriptionView[] }> } }, { id: string }>(
      `query($id: ID!) { deployment(id: $id) { connectedAccounts { id subscriptions { id resource events status providerId expiresAt lastRenewedAt lastError nextAttemptAt } } } }`,
      { id: operator.deploymentId },
      { token: operator.token },
    ),
  );
  return data.deployment.connectedAccounts.find((a) => a.id === accountId)?.subscriptions ?? [];
}

export interface StoredEvent {
  id: string;
  connector: string;
  trigger: string;
  account: string;
  payload: unknown;
}

/** The deployment's newest 100 stored events; only one connector's when it is named. */
export async function storedEvents(app: TestApp, operator: Pick<Operator, "token" | "deploymentId">, connector?: string): Promise<StoredEvent[]> {
  const data = ok(
    await app.gql<{ deployment: { events: StoredEvent[] } }, { id: string }>(
      `query($id: ID!) { deployment(id: $id) { events(limit: 100) { id connector trigger account payload } } }`,
      { id: operator.deploymentId },
      { token: operator.token },
    ),
  );
  return connector === undefined ? data.deployment.events : data.deployment.events.filter((e) => e.connector === connector);
}

/**
 * An API-key or Basic connection made through the hosted flow, as an end user does: auth-url (with
 * the connector's example params) → Continue → consent → the credentials form filled with `fields`.
 */
export async function connectWithCredentials(
  app: TestApp,
  operator: Pick<Operator, "token" | "apiKey" | "deploymentId">,
  def: ConnectorDefinition,
  account: string,
  fields: Record<string, string>,
  params: Record<string, string> = exampleValues(def.declaration.params),
): Promise<ConnectedAccountView> {
  const extras = Object.fromEntries(Object.entries(params).map(([name, value]) => [`params[${name}]`, value]));
  const form = await openCredentialsForm(app, operator.apiKey, def.name, account, extras);
  const done = await submitForm(form, fields);
  if (done.status !== 200) throw new Error(`the credentials form answered ${done.status}: ${done.body.slice(0, 300)}`);
  const connected = (await connectedAccounts(app, operator)).find((a) => a.connector === def.name && a.account === account);
  if (!connected) throw new Error(`no ${def.name} account "${account}" is listed after the flow`);
  return connected;
}

/** The operator's Forwarding Trigger List set to these triggers (the subscription manager subscribes for them). */
export async function listTriggers(app: TestApp, operator: Pick<Operator, "token" | "deploymentId">, triggers: { connector: string; trigger: string }[]): Promise<void> {
  ok(await app.gql(SaveForwardingSettings, { deploymentId: operator.deploymentId, input: { forwardingUrl: "https://receiver.example.com/hook", triggers } }, { token: operator.token }));
}

/** The console's Disconnect: the connection's provider subscriptions are deleted at the provider first. */
export async function disconnect(app: TestApp, operator: Pick<Operator, "token">, connectedAccountId: string): Promise<void> {
  ok(await app.gql(`mutation($id: ID!) { disconnectAccount(id: $id) { id status } }`, { id: connectedAccountId }, { token: operator.token }));
}

/** The auth-url refuses each value (undefined: the parameter left out) with 400 `invalid_parameter`. */
export async function expectParamRefused(app: TestApp, apiKey: string, connector: string, param: string, values: (string | undefined)[]): Promise<void> {
  for (const value of values) {
    const response = await requestAuthUrl(app, apiKey, connector, "bob", value === undefined ? {} : { [`params[${param}]`]: value });
    expect(response.status, String(value)).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe("invalid_parameter");
  }
}

/** A fake Google Calendar (`sync` messages sent before the watch is answered), the service on it, and an operator's `alice` connected with every Calendar trigger listed. */
export async function connectedCalendar(clock: Clock) {
  const fake = await startFakeGoogleCalendar({ clock, syncBeforeAnswer: true });
  const app = await startTestApp(fake.env(), { clock });
  const ada = await createOperator(app);
  await listTriggers(app, ada, ["event_created", "event_updated", "event_cancelled"].map((trigger) => ({ connector: "google_calendar", trigger })));
  const accountId = (await connectAccount(app, ada, { connector: "google_calendar", account: "alice", provider: fake, params: {} })).id;
  return { fake, app, ada, accountId };
}

export type ConnectedCalendar = Awaited<ReturnType<typeof connectedCalendar>>;

/** connectedCalendar for a whole test file: made before its first test (filled in then), closed after its last. */
export function connectedCalendarForFile(clock: Clock): ConnectedCalendar {
  const calendar = {} as ConnectedCalendar;
  beforeAll(async () => {
    Object.assign(calendar, await connectedCalendar(clock));
  }, 180_000);
  afterAll(async () => {
    await calendar.app?.close();
    await calendar.fake?.close();
  });
  return calendar;
}
