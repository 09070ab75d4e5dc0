import { afterAll, beforeAll, expect, test } from "vitest";
import WebSocket from "ws";
import { createOperator, type Operator } from "../helpers/operators.ts";
import { errorCode, startTestApp, type TestApp } from "../helpers/testApp.ts";

/**
 * A console session is rate limited like an API key: RATE_LIMIT_PER_MINUTE requests per user,
 * shared by all of the user's sessions, whichever surface they use. Before, a logged-in member
 * could send requests without any limit (an outside review stalled the shared database that way).
 */
const PER_MINUTE = 20;
let app: TestApp;
let ada: Operator;
let bea: Operator;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
  ada = await createOperator(app, "Ada");
  bea = await createOperator(app, "Bea");
});
afterAll(() => app?.close());

const viewer = (caller: { token?: string; apiKey?: string }) => app.gql("{ viewer { id } deployments { id } }", {}, caller);

test("a user beyond RATE_LIMIT_PER_MINUTE gets RATE_LIMITED with a retry time, on every session and over websockets; other callers are unaffected", async () => {
  // createOperator spent two of Ada's points (createOrganization, generateApiKey).
  const codes: (string | undefined)[] = [];
  for (let i = 0; i < PER_MINUTE; i++) codes.push(errorCode(await viewer({ token: ada.token })));
  expect(codes.slice(0, PER_MINUTE - 2)).toEqual(Array(PER_MINUTE - 2).fill(undefined));
  expect(codes.slice(PER_MINUTE - 2)).toEqual(["RATE_LIMITED", "RATE_LIMITED"]);

  const limited = await viewer({ token: ada.token });
  expect(limited.errors![0].extensions).toMatchObject({ code: "RATE_LIMITED", retryAfter: expect.any(Number) });
  expect(limited.errors![0].message).toMatch(/Too many requests\. Retry in \d+ s\./);

  // A second session of the same user shares the budget.
  const again = await app.gql("mutation($email: String!) { logIn(email: $email, password: \"correct horse battery\") { token } }", { email: ada.email });
  const second = (again.data as { logIn: { token: string } }).logIn.token;
  expect(errorCode(await viewer({ token: second }))).toBe("RATE_LIMITED");

  // Over a websocket the connection is refused with 4429 and the reason.
  const socket = new WebSocket(`${app.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  await new Promise((resolve) => socket.once("open", resolve));
  socket.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${ada.token}` } }));
  const closed = await new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: String(reason) })));
  expect(closed.code).toBe(4429);
  expect(closed.reason).toMatch(/Too many requests/);

  // Another user, and Ada's own deployment key, have budgets of their own.
  expect(errorCode(await viewer({ token: bea.token }))).toBeUndefined();
  expect(errorCode(await viewer({ apiKey: ada.apiKey }))).toBeUndefined();
});
