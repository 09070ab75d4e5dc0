import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { createOperator, SignUp } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const LogIn = graphql(`
  mutation PwLogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { token }
  }
`);
const ChangePassword = graphql(`
  mutation PwChange($current: String!, $next: String!) {
    changePassword(currentPassword: $current, newPassword: $next)
  }
`);
const LogOutEverywhere = graphql(`mutation PwLogOutEverywhere { logOutEverywhere }`);
const Viewer = graphql(`query PwViewer { viewer { email } }`);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_RATE_LIMIT_PER_15_MINUTES: "3" });
});
afterAll(() => app.close());

async function userWithSessions(name: string, password: string, sessions: number) {
  const email = `${name}@example.com`;
  const tokens = [ok(await app.gql(SignUp, { email, password, name })).signUp.token];
  while (tokens.length < sessions) tokens.push(ok(await app.gql(LogIn, { email, password })).logIn.token);
  return { email, tokens };
}
const viewerOf = async (token: string) => errorCode(await app.gql(Viewer, {}, { token })) ?? ok(await app.gql(Viewer, {}, { token })).viewer?.email;

describe("changePassword", () => {
  test("the new password works, the old one does not; other sessions end, this one stays", async () => {
    const { email, tokens } = await userWithSessions("changer", "old password 1", 3);
    const [mine, laptop, cli] = tokens;
    expect(ok(await app.gql(ChangePassword, { current: "old password 1", next: "new password 2" }, { token: mine })).changePassword).toBe(true);

    expect(await viewerOf(mine)).toBe(email);
    expect(await viewerOf(laptop)).toBe("UNAUTHENTICATED");
    expect(await viewerOf(cli)).toBe("UNAUTHENTICATED");
    expect(errorCode(await app.gql(LogIn, { email, password: "old password 1" }))).toBe("UNAUTHENTICATED");
    expect(ok(await app.gql(LogIn, { email, password: "new password 2" })).logIn.token).toMatch(/^sy_session_/);
  });

  test("a wrong current password is BAD_USER_INPUT on currentPassword, changes nothing, and counts as a failed log-in", async () => {
    const { email, tokens } = await userWithSessions("guarded", "real password 1", 2);
    for (let i = 0; i < 3; i++) {
      const wrong = await app.gql(ChangePassword, { current: `guess ${i}`, next: "attacker password" }, { token: tokens[0] });
      expect(errorCode(wrong)).toBe("BAD_USER_INPUT");
      expect(wrong.errors?.[0].extensions?.fields).toEqual([{ field: "currentPassword", message: "is not correct" }]);
    }
    // A stolen session cannot guess its way to the password: the log-in limits apply.
    expect(errorCode(await app.gql(ChangePassword, { current: "real password 1", next: "attacker password" }, { token: tokens[0] }))).toBe("RATE_LIMITED");
    expect(await viewerOf(tokens[1])).toBe(email);
  });

  test.each([
    [{ current: "same password 1", next: "same password 1" }, "newPassword"],
    [{ current: "same password 1", next: "short" }, "newPassword"],
  ])("a bad new password %o is BAD_USER_INPUT on the field", async (args, field) => {
    const { tokens } = await userWithSessions(`bad-${field}-${args.next.length}`, "same password 1", 1);
    const result = await app.gql(ChangePassword, args, { token: tokens[0] });
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    expect((result.errors?.[0].extensions?.fields as { field: string }[])[0].field).toBe(field);
  });
});

test("logOutEverywhere ends every session of the user, this one too, and clears the cookie; other users keep theirs", async () => {
  const { tokens } = await userWithSessions("everywhere", "a password 123", 3);
  const bystander = await userWithSessions("bystander", "a password 123", 1);
  const response = await fetch(`${app.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${tokens[0]}` },
    body: JSON.stringify({ query: "mutation { logOutEverywhere }" }),
  });
  expect(((await response.json()) as { data: unknown }).data).toEqual({ logOutEverywhere: true });
  expect(response.headers.get("set-cookie")).toMatch(/^sy_session=;.*Max-Age=0/);
  for (const token of tokens) expect(await viewerOf(token)).toBe("UNAUTHENTICATED");
  expect(await viewerOf(bystander.tokens[0])).toBe("bystander@example.com");
});

test("both need a logged-in user: an API key is FORBIDDEN, nobody is UNAUTHENTICATED", async () => {
  const operator = await createOperator(app, "Keyholder");
  for (const run of [
    (caller: object) => app.gql(ChangePassword, { current: "correct horse battery", next: "another passphrase" }, caller),
    (caller: object) => app.gql(LogOutEverywhere, {}, caller),
  ]) {
    expect(errorCode(await run({ apiKey: operator.apiKey }))).toBe("FORBIDDEN");
    expect(errorCode(await run({}))).toBe("UNAUTHENTICATED");
  }
  expect(await viewerOf(operator.token)).toBe(operator.email);
});
