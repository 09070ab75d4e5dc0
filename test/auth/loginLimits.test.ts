import type { IncomingMessage } from "node:http";
import { createClient } from "graphql-ws";
import { print } from "graphql";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { clientIp } from "../../src/http/node.ts";
import { graphql } from "../generated/gql.ts";
import { SignUp } from "../helpers/operators.ts";
import { errorCode, ok, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * Log-in limits as an attacker and an owner meet them, behind one reverse proxy (TRUST_PROXY=1):
 * the test plays the proxy, so each request's X-Forwarded-For is the address the proxy saw.
 */

const LogIn = graphql(`
  mutation LimitsLogIn($email: String!, $password: String!) {
    logIn(email: $email, password: $password) { token }
  }
`);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({
    TRUST_PROXY: "1",
    LOGIN_RATE_LIMIT_PER_15_MINUTES: "3",
    LOGIN_RATE_LIMIT_PER_ADDRESS_PER_HOUR: "5",
    LOGIN_ACCOUNT_FREE_FAILURES: "4",
  });
});
afterAll(() => app.close());

const PASSWORD = "the owner's real password";
async function account(name: string) {
  const email = `${name}@example.com`;
  ok(await app.gql(SignUp, { email, password: PASSWORD, name }));
  return email;
}
const logInFrom = (address: string, email: string, password: string) =>
  app.gql(LogIn, { email, password }, { headers: { "x-forwarded-for": address } });

describe("behind a reverse proxy (TRUST_PROXY=1)", () => {
  test("each client is limited by its own address, not the proxy's", async () => {
    const email = await account("proxied");
    for (let i = 0; i < 3; i++) expect(errorCode(await logInFrom("203.0.113.1", email, `guess ${i}`))).toBe("UNAUTHENTICATED");
    const limited = await logInFrom("203.0.113.1", email, PASSWORD);
    expect(errorCode(limited)).toBe("RATE_LIMITED");
    expect(limited.errors?.[0].extensions?.retryAfter).toBeGreaterThan(0);
    // A forged entry to the left of what the proxy appended is not believed.
    expect(errorCode(await logInFrom("198.51.100.7, 203.0.113.1", email, PASSWORD))).toBe("RATE_LIMITED");
    // The owner, elsewhere behind the same proxy, is not locked out by the guesser.
    expect(ok(await logInFrom("203.0.113.2", email, PASSWORD)).logIn.token).toMatch(/^sy_session_/);
  });

  test("over graphql-ws too: the upgrade request's X-Forwarded-For is the client", async () => {
    const email = await account("socket");
    const overSocket = async (address: string, password: string) => {
      const Socket = class extends WebSocket {
        constructor(url: string, protocols?: string | string[]) {
          super(url, protocols, { headers: { "x-forwarded-for": address } });
        }
      };
      const client = createClient({ url: `${app.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: Socket, retryAttempts: 0 });
      try {
        return await new Promise<{ errors?: readonly { extensions?: { code?: unknown } }[] }>((resolve, reject) => {
          let result: { errors?: readonly { extensions?: { code?: unknown } }[] } = {};
          client.subscribe(
            { query: print(LogIn), variables: { email, password } },
            { next: (value) => (result = value as typeof result), error: reject, complete: () => resolve(result) },
          );
        });
      } finally {
        await client.dispose();
      }
    };
    for (let i = 0; i < 3; i++) expect((await overSocket("203.0.113.30", `guess ${i}`)).errors?.[0].extensions?.code).toBe("UNAUTHENTICATED");
    expect((await overSocket("203.0.113.30", PASSWORD)).errors?.[0].extensions?.code).toBe("RATE_LIMITED");
    expect((await overSocket("203.0.113.31", PASSWORD)).errors).toBeUndefined();
  });
});

test("one address guessing across many accounts is stopped for the hour; other addresses are not", async () => {
  for (let i = 0; i < 5; i++) {
    expect(errorCode(await logInFrom("203.0.113.10", `stuffed-${i}@example.com`, "password123"))).toBe("UNAUTHENTICATED");
  }
  const sixth = await logInFrom("203.0.113.10", "stuffed-6@example.com", "password123");
  expect(errorCode(sixth)).toBe("RATE_LIMITED");
  // An IPv6 client is limited by its /64: rotating the low bits does not help.
  for (let i = 0; i < 5; i++) {
    expect(errorCode(await logInFrom(`2001:db8:1:2::${i + 1}`, `v6-${i}@example.com`, "password123"))).toBe("UNAUTHENTICATED");
  }
  expect(errorCode(await logInFrom("2001:db8:1:2::ffff", "v6-x@example.com", "password123"))).toBe("RATE_LIMITED");
  expect(errorCode(await logInFrom("203.0.113.11", "stuffed-6@example.com", "password123"))).toBe("UNAUTHENTICATED");
});

test("many addresses guessing one account are slowed to one try per backoff period; the owner at a clean address still gets in", async () => {
  const email = await account("target");
  // Four guessers, one try each: the account's free failures are spent.
  for (const n of [21, 22, 23, 24]) expect(errorCode(await logInFrom(`203.0.113.${n}`, email, `guess ${n}`))).toBe("UNAUTHENTICATED");
  // Past them, the account takes one try per period (30 s, doubling): the first is checked…
  expect(errorCode(await logInFrom("203.0.113.21", email, "guess again"))).toBe("UNAUTHENTICATED");
  // …and every other address that has already failed waits, whatever it sends.
  const waiting = await logInFrom("203.0.113.22", email, PASSWORD);
  expect(errorCode(waiting)).toBe("RATE_LIMITED");
  expect(waiting.errors?.[0].extensions?.retryAfter).toBeGreaterThan(0);
  expect(waiting.errors?.[0].extensions?.retryAfter).toBeLessThanOrEqual(30);

  // An address with no failed attempt is let through once: with the right password, that is the owner.
  expect(ok(await logInFrom("203.0.113.99", email, PASSWORD)).logIn.token).toMatch(/^sy_session_/);
  // A fresh guesser gets that one try, and then waits like the rest.
  expect(errorCode(await logInFrom("203.0.113.98", email, "fresh guess"))).toBe("UNAUTHENTICATED");
  expect(errorCode(await logInFrom("203.0.113.98", email, "second guess"))).toBe("RATE_LIMITED");
});

describe("clientIp: which X-Forwarded-For entry is believed", () => {
  const request = (forwardedFor: string | undefined, socket = "10.0.0.9") =>
    ({ headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor }, socket: { remoteAddress: socket } }) as unknown as IncomingMessage;

  test.each([
    // [X-Forwarded-For, hops, client]
    ["1.1.1.1", 0, "10.0.0.9"], // TRUST_PROXY unset: the header is ignored
    [undefined, 1, "10.0.0.9"], // a request that did not come through the proxy
    ["1.1.1.1", 1, "1.1.1.1"],
    ["6.6.6.6, 1.1.1.1", 1, "1.1.1.1"], // the client's own header, then what the proxy appended
    ["6.6.6.6, 1.1.1.1, 172.16.0.2", 2, "1.1.1.1"], // two proxies
    ["1.1.1.1", 5, "1.1.1.1"], // fewer entries than hops: the leftmost
    ["6.6.6.6, 1.1.1.1", Number.POSITIVE_INFINITY, "6.6.6.6"], // TRUST_PROXY=true: the leftmost
    ["not-an-address", 1, "10.0.0.9"],
    ["::ffff:1.1.1.1", 1, "1.1.1.1"],
  ])("%s with %d hop(s) → %s", (forwardedFor, hops, expected) => {
    expect(clientIp(request(forwardedFor), hops)).toBe(expected);
  });

  test("an IPv4-mapped socket address reads as IPv4", () => {
    expect(clientIp(request(undefined, "::ffff:127.0.0.1"), 0)).toBe("127.0.0.1");
  });
});
