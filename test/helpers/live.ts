import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";
import { graphql } from "../generated/gql.ts";
import { type Caller, ok, type TestApp } from "./testApp.ts";
import { scaled } from "./timing.ts";

/**
 * Live subscriptions as a client sees them: a real graphql-ws client over `ws`, and SSE over fetch.
 * Both collect what arrives so a test can `await next()` in order.
 */

export interface LiveResult {
  /** Over SSE: the message's `id:` line (an event id), when it has one. */
  id?: string;
  extensions?: Record<string, unknown>;
  data?: Record<string, any> | null; // eslint-disable-line @typescript-eslint/no-explicit-any
  errors?: { message: string; extensions?: { code?: string; [key: string]: unknown } }[];
}

export type Ending = { kind: "complete" } | { kind: "closed"; code: number; reason: string } | { kind: "error"; errors: LiveResult["errors"] };

export interface Live {
  /** The next result, in order of arrival. */
  next(): Promise<LiveResult>;
  /** How the subscription ended (complete, an error, or the socket closed). */
  ended: Promise<Ending>;
  stop(): void;
}

function collector() {
  const results: LiveResult[] = [];
  const waiters: ((result: LiveResult) => void)[] = [];
  let end!: (ending: Ending) => void;
  const ended = new Promise<Ending>((resolve) => (end = resolve));
  return {
    push(result: LiveResult) {
      const waiter = waiters.shift();
      if (waiter) waiter(result);
      else results.push(result);
    },
    next(): Promise<LiveResult> {
      const ready = results.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => waiters.push(resolve));
    },
    end,
    ended,
  };
}

/** A graphql-ws client on the app's own port and path, with credentials in connectionParams or a cookie. */
export function wsClient(baseUrl: string, options: { connectionParams?: Record<string, string>; cookie?: string } = {}): Client {
  const cookie = options.cookie;
  const Socket = cookie
    ? class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { cookie } });
        }
      }
    : WebSocket;
  return createClient({
    url: `${baseUrl.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: Socket,
    connectionParams: options.connectionParams,
    retryAttempts: 0,
    lazy: true,
  });
}

export function subscribeWs(client: Client, query: string, variables: Record<string, unknown>): Live {
  const c = collector();
  const stop = client.subscribe<Record<string, unknown>>(
    { query, variables },
    {
      next: (result) => c.push(result as LiveResult),
      complete: () => c.end({ kind: "complete" }),
      error: (error) => {
        if (Array.isArray(error)) c.end({ kind: "error", errors: error });
        else if (error && typeof error === "object" && "code" in error) {
          const event = error as { code: number; reason: string };
          c.end({ kind: "closed", code: event.code, reason: event.reason });
        } else c.end({ kind: "error", errors: [{ message: String(error) }] });
      },
    },
  );
  return { next: c.next, ended: c.ended, stop };
}

/** A subscription over Server-Sent Events: POST /graphql with `Accept: text/event-stream`. */
export async function subscribeSse(
  baseUrl: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Live & { status: number }> {
  const c = collector();
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += value;
        let boundary: number;
        while ((boundary = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          const data = frame
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).trimStart())
            .join("\n");
          if (event === "next" && data) c.push({ ...(JSON.parse(data) as LiveResult), ...(id === undefined ? {} : { id }) });
          if (event === "complete") c.end({ kind: "complete" });
        }
      }
      c.end({ kind: "complete" });
    } catch {
      c.end({ kind: "closed", code: 0, reason: "aborted" });
    }
  })();
  return { status: response.status, next: c.next, ended: c.ended, stop: () => abort.abort() };
}

/** Polls until `check` holds (a state change the test cannot be told about), or fails after `ms` (scaled to the machine's load). */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const waitMs = scaled(ms);
  const deadline = Date.now() + waitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${Math.round(waitMs / 1000)} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The `switchyard_live_subscriptions` gauge of an instance, read from its /metrics like an operator would. */
export async function liveSubscriptions(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const match = /^switchyard_live_subscriptions (\d+)/m.exec(text);
  return match ? Number(match[1]) : 0;
}

const LiveSaveForwarding = graphql(`
  mutation LiveSaveForwarding($deploymentId: ID!, $input: ForwardingSettingsInput!) {
    saveForwardingSettings(deploymentId: $deploymentId, input: $input) { forwardingUrl }
  }
`);
const LiveSendTestEvent = graphql(`
  mutation LiveSendTestEvent($deploymentId: ID!, $trigger: TriggerRefInput!) {
    sendTestEvent(deploymentId: $deploymentId, trigger: $trigger) { id type account occurredAt payload }
  }
`);

type Gql = Pick<TestApp, "gql">;

/** Points the deployment's forwarding at `url` (with github.issue_opened in its trigger list). */
export async function forwardTo(app: Gql, deploymentId: string, url: string, caller: Caller) {
  ok(await app.gql(LiveSaveForwarding, { deploymentId, input: { forwardingUrl: url, triggers: [{ connector: "github", trigger: "issue_opened" }] } }, caller));
}

/** A real event through the real pipeline: sendTestEvent records it, queues its delivery and publishes it. */
export async function fireTestEvent(app: Gql, deploymentId: string, caller: Caller, trigger = { connector: "github", trigger: "issue_opened" }) {
  return ok(await app.gql(LiveSendTestEvent, { deploymentId, trigger }, caller)).sendTestEvent;
}
