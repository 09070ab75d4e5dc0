import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { graphql } from "../generated/gql.ts";
import { SignUp } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

const LogIn = graphql(`
  mutation LogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { token user { id email name } }
  }
`);
const LogOut = graphql(`mutation LogOut { logOut }`);
const Viewer = graphql(`query Viewer { viewer { id email name } }`);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ LOGIN_RATE_LIMIT_PER_15_MINUTES: "5" });
});
afterAll(() => app.close());

describe("signing up and logging in", () => {
  test("a new operator signs up, is logged in at once, and the email is case-insensitive", async () => {
    const { signUp } = ok(await app.gql(SignUp, { email: "  Linus@Example.COM ", password: "hunter2hunter2", name: "Linus" }));
    expect(signUp.user).toMatchObject({ email: "linus@example.com", name: "Linus" });
    expect(signUp.token).toMatch(/^sy_session_/);
    expect(ok(await app.gql(Viewer, {}, { token: signUp.token })).viewer?.email).toBe("linus@example.com");

    const again = await app.gql(SignUp, { email: "LINUS@example.com", password: "another-password", name: "Imposter" });
    expect(errorCode(again)).toBe("BAD_USER_INPUT");
    expect(again.errors?.[0].message).toMatch(/already exists/);

    const { logIn } = ok(await app.gql(LogIn, { email: "LINUS@EXAMPLE.com", password: "hunter2hunter2" }));
    expect(logIn.user.email).toBe("linus@example.com");
  });

  test.each([
    [{ email: "not-an-email", password: "long enough pass", name: "X" }, "email"],
    [{ email: "short@example.com", password: "short", name: "X" }, "password"],
    [{ email: "noname@example.com", password: "long enough pass", name: "   " }, "name"],
    [{ email: `${"a".repeat(250)}@example.com`, password: "long enough pass", name: "X" }, "email"],
  ])("bad sign-up input %o is BAD_USER_INPUT naming the field", async (input, field) => {
    const result = await app.gql(SignUp, input);
    expect(errorCode(result)).toBe("BAD_USER_INPUT");
    expect((result.errors?.[0].extensions?.fields as { field: string }[]).map((f) => f.field)).toContain(field);
  });

  test("a wrong password and an unknown email get the same answer", async () => {
    ok(await app.gql(SignUp, { email: "mallory-target@example.com", password: "the real password", name: "T" }));
    const wrongPassword = await app.gql(LogIn, { email: "mallory-target@example.com", password: "a wrong password" });
    const unknownEmail = await app.gql(LogIn, { email: "nobody@example.com", password: "a wrong password" });
    expect(errorCode(wrongPassword)).toBe("UNAUTHENTICATED");
    expect(wrongPassword.errors?.[0].message).toBe(unknownEmail.errors?.[0].message);
  });

  test("logging in sets an HttpOnly SameSite=Lax session cookie that authenticates by itself", async () => {
    ok(await app.gql(SignUp, { email: "cookie@example.com", password: "cookie monster!", name: "C" }));
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `mutation { logIn(email: "cookie@example.com", password: "cookie monster!") { token } }` }),
    });
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^sy_session=sy_session_[\w-]+;/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    const viewer = await app.gql(Viewer, {}, { headers: { cookie: cookie.split(";")[0] } });
    expect(ok(viewer).viewer?.email).toBe("cookie@example.com");
  });

  test("logging out ends the session: the token stops working", async () => {
    const { signUp } = ok(await app.gql(SignUp, { email: "leaver@example.com", password: "see you later", name: "L" }));
    expect(ok(await app.gql(LogOut, {}, { token: signUp.token })).logOut).toBe(true);
    const after = await app.gql(Viewer, {}, { token: signUp.token });
    expect(errorCode(after)).toBe("UNAUTHENTICATED");
    expect(ok(await app.gql(LogOut, {})).logOut).toBe(false);
  });

  test("viewer is null for nobody; a stale cookie is treated as nobody", async () => {
    expect(ok(await app.gql(Viewer, {})).viewer).toBeNull();
    expect(ok(await app.gql(Viewer, {}, { headers: { cookie: "sy_session=sy_session_stale" } })).viewer).toBeNull();
  });

  test("repeated failed logins are rate-limited with RATE_LIMITED and a retry time", async () => {
    ok(await app.gql(SignUp, { email: "target@example.com", password: "correct password", name: "T" }));
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(errorCode(await app.gql(LogIn, { email: "target@example.com", password: `guess ${i}` })));
    expect(codes.slice(0, 5)).toEqual(Array(5).fill("UNAUTHENTICATED"));
    expect(codes[5]).toBe("RATE_LIMITED");
    const limited = await app.gql(LogIn, { email: "target@example.com", password: "correct password" });
    expect(errorCode(limited)).toBe("RATE_LIMITED");
    expect(limited.errors?.[0].extensions?.retryAfter).toBeGreaterThan(0);
  });
});
