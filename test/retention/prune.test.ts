import { afterAll, beforeAll, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { SaveForwardingSettings, SendTestEvent } from "../helpers/forwarding.ts";
import { EventDelivery, EventLog, PauseForwarding } from "../helpers/operations.ts";
import { createOperator, invitationToken, type Operator } from "../helpers/operators.ts";
import { type Receiver, startReceiver } from "../helpers/receiver.ts";
import { fakeClock } from "../helpers/clock.ts";
import { ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * RETENTION_DAYS: old events go with their deliveries and attempts, in batches; recent events and
 * any event still owed a delivery (PENDING) stay; expired console sessions go, and connect sessions
 * a day after they expired; expired invitations go; replay-check digests go once past their
 * connector's window. Rows are aged by moving their timestamps back, as time would.
 */
let app: TestApp;
let receiver: Receiver;
let ada: Operator;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({ RETENTION_DAYS: "30" }, { worker: true });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

const Viewer = graphql(`query RetentionViewer { viewer { id } }`);
const Invite = graphql(`
  mutation RetentionInvite($organizationId: ID!, $email: String!) {
    inviteMember(organizationId: $organizationId, email: $email, role: MEMBER) { __typename ... on Invitation { id email acceptUrl } }
  }
`);
const Invitations = graphql(`query RetentionInvitations($id: ID!) { organization(id: $id) { invitations { email } } }`);
const SignUpInvited = graphql(`
  mutation RetentionSignUpInvited($email: String!, $invitationToken: String) {
    signUp(email: $email, password: "correct horse battery", name: "Invited", invitationToken: $invitationToken) { user { id } }
  }
`);

test("old events, deliveries and attempts go in batches; recent and pending ones stay; expired sessions go", async () => {
  const sql = app.database.sql;
  ok(await app.gql(SaveForwardingSettings, { deploymentId: ada.deploymentId, input: { forwardingUrl: `${receiver.url}/ok`, triggers: [] } }, { token: ada.token }));
  const send = async () =>
    ok(await app.gql(SendTestEvent, { deploymentId: ada.deploymentId, trigger: { connector: "github", trigger: "issue_opened" } }, { token: ada.token })).sendTestEvent.id;
  const delivered = [await send(), await send(), await send(), await send()];
  await receiver.waitFor(() => delivered.every((id) => receiver.byEventId(id).length === 1));
  for (;;) {
    const statuses = await Promise.all(delivered.map(async (eventId) => (await app.gql(EventDelivery, { id: ada.deploymentId, eventId }, { token: ada.token })).data!.deployment!.eventLog.nodes[0].deliveries[0].status));
    if (statuses.every((s) => s === "SUCCEEDED")) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  ok(await app.gql(PauseForwarding, { deploymentId: ada.deploymentId }, { token: ada.token }));
  const held = await send();

  // Three delivered events and the held one are 40 days old; one delivered event is recent.
  const old = [...delivered.slice(0, 3), held];
  await sql.query(`update trigger_event set received_at = received_at - interval '40 days' where id = any($1::text[])`, [old]);
  // The held one oldest of all: every batch after the first goes on past it, never back over it.
  await sql.query(`update trigger_event set received_at = received_at - interval '10 days' where id = $1`, [held]);
  const oldDeliveryIds = (await sql.query<{ id: string }>(`select id from delivery where event_id = any($1::text[])`, [delivered.slice(0, 3)])).map((r) => r.id);
  expect((await sql.query<{ n: number }>(`select count(*)::int as n from delivery_attempt where delivery_id = any($1::text[])`, [oldDeliveryIds]))[0].n).toBe(3);

  // Bea's session has expired; two connect sessions expired, one of them more than a day ago.
  const bea = await createOperator(app, "Bea");
  await sql.query(`update session set expires_at = now() - interval '1 hour' where user_id = $1`, [bea.userId]);
  // Another deployment's old event goes too: retention walks every deployment's events.
  const beaOld = await app.app.recorder.record(bea.deploymentId, {
    connector: "github",
    trigger: "issue_opened",
    account: "bea",
    connectedAccountId: null,
    dedupeKey: "bea-old",
    occurredAt: new Date(),
    data: {},
  });
  await sql.query(`update trigger_event set received_at = received_at - interval '40 days' where id = $1`, [beaOld.eventId]);
  await sql.query(
    `insert into connect_session (id, token_hash, deployment_id, connector, account, expires_at)
     values ('cs_stale', 'h1', $1, 'github', 'alice', now() - interval '2 days'), ('cs_recent', 'h2', $1, 'github', 'bob', now() - interval '1 hour')`,
    [ada.deploymentId],
  );

  // Batches of one: the pass keeps going until a batch comes back short.
  const counts = await app.app.createRetentionJob({ batchSize: 1, pauseMs: 0 }).runOnce();
  expect(counts).toEqual({ events: 4, sessions: 1, connectSessions: 1, invitations: 0, bodyDigests: 0 });
  expect(await sql.query(`select id from trigger_event where id = $1`, [beaOld.eventId])).toEqual([]);

  const { deployment } = ok(await app.gql(EventLog, { id: ada.deploymentId, first: 50 }, { token: ada.token }));
  expect(deployment!.eventLog.nodes.map((n) => n.id).sort()).toEqual([delivered[3], held].sort());
  expect((await sql.query<{ n: number }>(`select count(*)::int as n from delivery where id = any($1::text[])`, [oldDeliveryIds]))[0].n).toBe(0);
  expect((await sql.query<{ n: number }>(`select count(*)::int as n from delivery_attempt where delivery_id = any($1::text[])`, [oldDeliveryIds]))[0].n).toBe(0);
  expect((await sql.query<{ id: string }>(`select id from connect_session order by id`)).map((r) => r.id)).toEqual(["cs_recent"]);
  // The expired session's row is gone: the token is simply unknown now (it was refused already).
  expect((await sql.query<{ n: number }>(`select count(*)::int as n from session where user_id = $1`, [bea.userId]))[0].n).toBe(0);
  expect(ok(await app.gql(Viewer, {}, { token: ada.token })).viewer).not.toBeNull();

  // A second pass finds nothing more.
  expect(await app.app.createRetentionJob().runOnce()).toEqual({ events: 0, sessions: 0, connectSessions: 0, invitations: 0, bodyDigests: 0 });
});

test("replay-check digests go once past their connector's window (GitHub 3 days, Shopify 48 hours); an unknown connector's all go", async () => {
  const sql = app.database.sql;
  const digests = async () =>
    (await sql.query<{ digest: string }>(`select digest from inbound_body_digest where deployment_id = $1 order by digest`, [ada.deploymentId])).map((row) => row.digest);
  await sql.query(
    `insert into inbound_body_digest (deployment_id, connector, digest, dedupe_key, seen_at) values
       ($1, 'github', 'github-4-days', 'github:a', now() at time zone 'UTC' - interval '4 days'),
       ($1, 'github', 'github-2-days', 'github:b', now() at time zone 'UTC' - interval '2 days'),
       ($1, 'github', 'github-5-days', 'github:c', now() at time zone 'UTC' - interval '5 days'),
       ($1, 'shopify', 'shopify-1-day', 'shopify:d', now() at time zone 'UTC' - interval '1 day'),
       ($1, 'shopify', 'shopify-3-days', 'shopify:e', now() at time zone 'UTC' - interval '3 days'),
       ($1, 'retired', 'retired-1-minute', 'retired:f', now() at time zone 'UTC' - interval '1 minute')`,
    [ada.deploymentId],
  );
  // Batches of one: a connector's digests go over several statements, and the walk goes on to the next connector.
  const counts = await app.app.createRetentionJob({ batchSize: 1, pauseMs: 0 }).runOnce();
  expect(counts.bodyDigests).toBe(4);
  expect(await digests()).toEqual(["github-2-days", "shopify-1-day"]);
  expect((await app.app.createRetentionJob().runOnce()).bodyDigests).toBe(0);
});

test("the background job starts, prunes on its own (sessions and digests), and stops", async () => {
  const sql = app.database.sql;
  const cara = await createOperator(app, "Cara");
  await sql.query(`update session set expires_at = now() - interval '1 hour' where user_id = $1`, [cara.userId]);
  await sql.query(
    `insert into inbound_body_digest (deployment_id, connector, digest, dedupe_key, seen_at)
     values ($1, 'github', 'cara-4-days', 'github:cara', now() at time zone 'UTC' - interval '4 days')`,
    [cara.deploymentId],
  );
  const job = app.app.createRetentionJob({ intervalMs: 50 });
  job.start();
  try {
    for (let i = 0; ; i++) {
      const [row] = await sql.query<{ n: number }>(
        `select ((select count(*) from session where user_id = $1) + (select count(*) from inbound_body_digest where deployment_id = $2))::int as n`,
        [cara.userId, cara.deploymentId],
      );
      if (row.n === 0) break;
      if (i > 400) throw new Error(`the retention job left ${row.n} of Cara's expired session and digest within 20 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await job.stop();
  }
});

test("expired invitations go in batches; a pending one stays and still admits its address", async () => {
  const sql = app.database.sql;
  const emails = ["lapsed-1@example.com", "lapsed-2@example.com", "pending@example.com"];
  const links: Record<string, string | null | undefined> = {};
  for (const email of emails) {
    const invited = ok(await app.gql(Invite, { organizationId: ada.organizationId, email }, { token: ada.token })).inviteMember;
    if (invited.__typename === "Invitation") links[email] = invited.acceptUrl;
  }
  await sql.query(`update invitation set expires_at = now() - interval '1 minute' where email = any($1::text[])`, [emails.slice(0, 2)]);

  const counts = await app.app.createRetentionJob({ batchSize: 1, pauseMs: 0 }).runOnce();
  expect(counts.invitations).toBe(2);
  expect((await sql.query<{ email: string }>(`select email from invitation order by email`)).map((r) => r.email)).toEqual(["pending@example.com"]);
  const { organization } = ok(await app.gql(Invitations, { id: ada.organizationId }, { token: ada.token }));
  expect(organization!.invitations.map((i) => i.email)).toEqual(["pending@example.com"]);

  // The pending invitation still does its job: signing up through its link joins the organization.
  ok(await app.gql(SignUpInvited, { email: "pending@example.com", invitationToken: invitationToken(links["pending@example.com"]) }));
  const [joined] = await sql.query<{ n: number }>(
    `select count(*)::int as n from membership m join "user" u on u.id = m.user_id where u.email = 'pending@example.com' and m.organization_id = $1`,
    [ada.organizationId],
  );
  expect(joined.n).toBe(1);
  expect((await app.app.createRetentionJob().runOnce()).invitations).toBe(0);
});

test("retention measures age by the app's clock: an invitation goes once the clock passes its expiry, not before", async () => {
  const clock = fakeClock(new Date());
  const moved = await startTestApp({ RETENTION_DAYS: "30" }, { clock });
  try {
    const cleo = await createOperator(moved, "Cleo");
    ok(await moved.gql(Invite, { organizationId: cleo.organizationId, email: "later@example.com" }, { token: cleo.token }));
    const invitations = async () => (await moved.database.sql.query<{ email: string }>(`select email from invitation`)).map((r) => r.email);

    clock.advance(13 * 86_400_000);
    expect((await moved.app.createRetentionJob().runOnce()).invitations).toBe(0);
    expect(await invitations()).toEqual(["later@example.com"]);

    // Invitations wait 14 days; a day past that the pass deletes it, with no row aged by hand.
    clock.advance(2 * 86_400_000);
    expect((await moved.app.createRetentionJob().runOnce()).invitations).toBe(1);
    expect(await invitations()).toEqual([]);
  } finally {
    await moved.close();
  }
});
