import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { startTestApp, type TestApp } from "../helpers/testApp.ts";

/** Requests a client can get wrong in ways the service must answer as the client's mistake, never a 500. */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const postGraphQL = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("a session cookie that is not valid percent-encoding", () => {
  test("is treated as absent over HTTP: the caller is simply not logged in", async () => {
    const post = await postGraphQL({ query: "{ viewer { id } }" }, { cookie: "sy_session=%" });
    expect(post.status).toBe(200);
    expect(await post.json()).toEqual({ data: { viewer: null } });

    const get = await fetch(`${app.url}/graphql?query=${encodeURIComponent("{ viewer { id } }")}`, { headers: { accept: "application/json", cookie: "theme=dark; sy_session=%E0%A4%A" } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { viewer: null } });
  });

  test("is treated as absent on a websocket: it opens and answers", async () => {
    const socket = new WebSocket(`${app.url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws", { headers: { cookie: "sy_session=%" } });
    const messages: { type: string; payload?: unknown }[] = [];
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    const next = new Promise<{ type: string; payload?: unknown }>((resolve, reject) => {
      socket.on("message", (data) => {
        const message = JSON.parse(String(data)) as { type: string; payload?: unknown };
        messages.push(message);
        if (message.type === "connection_ack") socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query: "{ viewer { id } }" } }));
        if (message.type === "next") resolve(message);
      });
      void closed.then((code) => reject(new Error(`closed with ${code}: ${JSON.stringify(messages)}`)));
    });
    socket.once("open", () => socket.send(JSON.stringify({ type: "connection_init", payload: {} })));
    expect(await next).toEqual({ id: "1", type: "next", payload: { data: { viewer: null } } });
    socket.close();
  });
});

describe("GraphQL variables that are not an object", () => {
  test.each([
    ["an array", [1]],
    ["a number", 3],
    ["true", true],
    ["a string", "x"],
  ])("%s: 400 with yoga's own message, as over GET", async (_name, variables) => {
    for (const contentType of ["application/json", "application/graphql+json"]) {
      const response = await postGraphQL({ query: "{ viewer { id } }", variables }, { "content-type": contentType });
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.errors[0]).toMatchObject({ message: expect.stringMatching(/"variables" param to be empty or an object/), extensions: { code: "BAD_REQUEST" } });
    }
    const get = await fetch(`${app.url}/graphql?query=${encodeURIComponent("{ viewer { id } }")}&variables=${encodeURIComponent(JSON.stringify(variables))}`, {
      headers: { accept: "application/json" },
    });
    expect(get.status).toBe(400);
  });

  test.each([
    ["variables", "%00"],
    ["variables", "%ED%A0%80"],
    ["variables", "%0D%0AX-Injected%3A%201"],
    ["variables", "%2B275760-09-13T00%3A00%3A00.001Z"],
    ["extensions", "%00"],
    ["extensions", "%7B"],
  ])("over GET, %s that are not JSON at all (%s): 400, not an unexpected error", async (name, value) => {
    const response = await fetch(`${app.url}/graphql?query=${encodeURIComponent("query($d: ID) { deployment(id: $d) { id } }")}&${name}=${value}`, {
      headers: { accept: "application/json" },
    });
    const body = await response.json();
    expect({ status: response.status, code: body.errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
    expect(body.errors[0].message).toMatch(new RegExp(`"${name}"`));
  });

  test("as a form POST, variables that are not JSON: 400 as well", async () => {
    const response = await fetch(`${app.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: `query=${encodeURIComponent("{ __typename }")}&variables=%00`,
    });
    expect({ status: response.status, code: (await response.json()).errors?.[0]?.extensions?.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
  });

  test("extensions that are not an object and a query that is not a string: 400 as well", async () => {
    for (const body of [{ query: "{ viewer { id } }", extensions: [1] }, { query: 3 }]) {
      const response = await postGraphQL(body);
      expect(response.status).toBe(400);
      expect((await response.json()).errors[0].extensions.code).toBe("BAD_REQUEST");
    }
  });
});
