import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { REFRESH_MARGIN_MS, ReauthRequiredError } from "../../src/connections/accessTokens.ts";
import { fakeClock } from "../helpers/clock.ts";
import { connectAccount, connectedAccounts } from "../helpers/connectFlow.ts";
import { startFakeGoogle, startFakeJira, type FakeGoogle, type FakeJira } from "../helpers/fakeProviders/index.ts";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

let app: TestApp;
let jira: FakeJira;
let google: FakeGoogle;
let ada: Operator;

beforeAll(async () => {
  [jira, google] = await Promise.all([startFakeJira(), startFakeGoogle()]);
  app = await startTestApp({ ...jira.env(), ...google.env() });
  ada = await createOperator(app, "Ada");
});
afterAll(async () => {
  await app.close();
  await Promise.all([jira.close(), google.close()]);
});

/** As if the provider's token lifetime had run out: the stored expiry moves into the past. */
async function timePassesBeyondExpiry(accountId: string) {
  await app.database.prisma.connectedAccount.update({ where: { id: accountId }, data: { tokenExpiresAt: new Date(Date.now() - 1000) } });
}

const refreshRequests = (fake: { tokenRequests: { grantType: string }[] }) => fake.tokenRequests.filter((r) => r.grantType === "refresh_token").length;

/** Which grant at the fake a token belongs to. */
const grantOf = (fake: FakeJira | FakeGoogle, token: string) => fake.grants.find((g) => g.accessToken === token);

describe("access tokens", () => {
  test("a token with time left is used as it is", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "fresh", provider: jira });
    const before = refreshRequests(jira);
    const token = await app.app.accessTokens.fresh(account.id);
    expect(grantOf(jira, token)?.grantType).toBe("authorization_code");
    expect(refreshRequests(jira)).toBe(before);
  });

  test("an expired token is refreshed (Atlassian rotates the refresh token); lastRefreshedAt shows it", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "rotating", provider: jira });
    expect(account.lastRefreshedAt).toBeNull();
    await timePassesBeyondExpiry(account.id);
    const token = await app.app.accessTokens.fresh(account.id);
    expect(grantOf(jira, token)?.grantType).toBe("refresh_token");
    const row = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3000_000);
    expect(row.refreshLockedUntil).toBeNull();
    expect(JSON.stringify(row)).not.toContain(token);
    const listed = (await connectedAccounts(app, ada)).find((a) => a.id === account.id)!;
    expect(listed.lastRefreshedAt).not.toBeNull();
    expect(listed.status).toBe("ACTIVE");
    // The rotated refresh token works the next time too.
    await timePassesBeyondExpiry(account.id);
    const third = await app.app.accessTokens.fresh(account.id);
    expect(third).not.toBe(token);
    expect(grantOf(jira, third)?.grantType).toBe("refresh_token");
  });

  test("two workers asking at once refresh once and get the same token", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "contended", provider: jira });
    await timePassesBeyondExpiry(account.id);
    const before = refreshRequests(jira);
    const tokens = await Promise.all(Array.from({ length: 8 }, () => app.app.accessTokens.fresh(account.id)));
    expect(refreshRequests(jira)).toBe(before + 1);
    expect(new Set(tokens).size).toBe(1);
  });

  test("Google keeps its refresh token: the stored one survives a refresh", async () => {
    const account = await connectAccount(app, ada, { connector: "gmail", account: "mailbox", provider: google });
    const { refreshTokenEncrypted: before } = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(before).not.toBeNull();
    await timePassesBeyondExpiry(account.id);
    const token = await app.app.accessTokens.fresh(account.id);
    expect(grantOf(google, token)?.grantType).toBe("refresh_token");
    await timePassesBeyondExpiry(account.id);
    expect(grantOf(google, await app.app.accessTokens.fresh(account.id))?.grantType).toBe("refresh_token");
  });

  test("a refused refresh (invalid_grant) marks the account REAUTH_REQUIRED; a new auth-url for it makes it ACTIVE again", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "revoked", provider: jira });
    await timePassesBeyondExpiry(account.id);
    jira.rejectRefreshTokens(true);
    try {
      await expect(app.app.accessTokens.fresh(account.id)).rejects.toBeInstanceOf(ReauthRequiredError);
    } finally {
      jira.rejectRefreshTokens(false);
    }
    expect((await connectedAccounts(app, ada)).find((a) => a.id === account.id)!.status).toBe("REAUTH_REQUIRED");
    // No more tries against the provider while it waits for a person.
    const before = refreshRequests(jira);
    await expect(app.app.accessTokens.fresh(account.id)).rejects.toBeInstanceOf(ReauthRequiredError);
    expect(refreshRequests(jira)).toBe(before);

    const reconnected = await connectAccount(app, ada, { connector: "jira", account: "revoked", provider: jira });
    expect(reconnected).toMatchObject({ id: account.id, status: "ACTIVE" });
    expect(grantOf(jira, await app.app.accessTokens.fresh(account.id))?.grantType).toBe("authorization_code");
  });

  test("a provider outage during refresh is not a reauthorization: the account stays ACTIVE and the lock is released", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "outage", provider: jira });
    await timePassesBeyondExpiry(account.id);
    jira.failTokenEndpoint(true);
    try {
      await expect(app.app.accessTokens.fresh(account.id)).rejects.toThrow(/token endpoint/);
    } finally {
      jira.failTokenEndpoint(false);
    }
    const row = await app.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.status).toBe("ACTIVE");
    expect(row.refreshLockedUntil).toBeNull();
    expect(grantOf(jira, await app.app.accessTokens.fresh(account.id))?.grantType).toBe("refresh_token");
  });

  test("a disconnected account gives no token", async () => {
    const account = await connectAccount(app, ada, { connector: "jira", account: "gone", provider: jira });
    await app.gql(`mutation($id: ID!) { disconnectAccount(id: $id) { id } }`, { id: account.id }, { token: ada.token });
    await expect(app.app.accessTokens.fresh(account.id)).rejects.toBeInstanceOf(ReauthRequiredError);
  });
});

describe("access tokens by the service's clock", () => {
  const clock = fakeClock(new Date());
  let timed: TestApp;
  let eve: Operator;
  beforeAll(async () => {
    timed = await startTestApp(jira.env(), { clock });
    eve = await createOperator(timed, "Eve");
  });
  afterAll(async () => {
    await timed?.close();
  });

  test("a token is refreshed once it comes within the refresh margin of its expiry, and its new expiry counts from the clock", async () => {
    const account = await connectAccount(timed, eve, { connector: "jira", account: "clocked", provider: jira });
    const { tokenExpiresAt } = await timed.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    const before = refreshRequests(jira);

    // A minute before the margin: the sweep leaves it alone and the stored token is handed out.
    clock.set(new Date(tokenExpiresAt!.getTime() - REFRESH_MARGIN_MS - 60_000));
    expect(await timed.app.accessTokens.refreshExpiring()).toBe(0);
    expect(grantOf(jira, await timed.app.accessTokens.fresh(account.id))?.grantType).toBe("authorization_code");
    expect(refreshRequests(jira)).toBe(before);

    // Two minutes on it is within the margin: the sweep refreshes it before anyone asks.
    clock.advance(2 * 60_000);
    expect(await timed.app.accessTokens.refreshExpiring()).toBe(1);
    expect(refreshRequests(jira)).toBe(before + 1);
    const row = await timed.database.prisma.connectedAccount.findUniqueOrThrow({ where: { id: account.id } });
    const token = await timed.app.accessTokens.fresh(account.id);
    expect(grantOf(jira, token)?.grantType).toBe("refresh_token");
    expect(row.lastRefreshedAt).toEqual(clock.now());
    // Jira's tokens last an hour (expires_in 3600).
    expect(row.tokenExpiresAt!.getTime() - clock.now().getTime()).toBe(3600_000);
  });
});
