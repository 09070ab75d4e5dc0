import { type Client as WsClient, createClient as createWsClient, type FormattedExecutionResult, type Sink, type SubscribePayload } from "graphql-ws";
import { cacheExchange, Client, fetchExchange, subscriptionExchange } from "urql";

/**
 * The GraphQL client: queries and mutations over HTTP to /graphql, subscriptions over graphql-ws
 * at ws(s)://<host>/graphql. Both carry the HttpOnly `sy_session` cookie the service set at log-in
 * (same origin), so no token is ever kept in JavaScript or localStorage. A new client is made on
 * log-in and log-out: nothing cached for one user survives into the next session.
 *
 * The service serves cookie requests only as JSON POSTs or with the x-graphql-yoga-csrf header
 * (its CSRF defence); urql sends queries as GETs, so every request carries the header.
 */
export type LiveState = "idle" | "connecting" | "live" | "offline" | "paused";

/** The websocket's state, for the "Live" marker of the Events table. */
export const liveState = {
  current: "idle" as LiveState,
  listeners: new Set<() => void>(),
  set(next: LiveState) {
    this.current = next;
    this.listeners.forEach((listener) => listener());
  },
  subscribe(listener: () => void) {
    liveState.listeners.add(listener);
    return () => void liveState.listeners.delete(listener);
  },
};

export function createConsoleClient(): { client: Client; dispose(): void } {
  liveState.set("idle");
  const ws = createWsClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`,
    lazy: true,
    retryAttempts: 8,
    shouldRetry: () => true,
    on: {
      connecting: () => liveState.set("connecting"),
      connected: () => liveState.set("live"),
      closed: () => liveState.set("offline"),
    },
  });
  const client = new Client({
    url: "/graphql",
    fetchOptions: { credentials: "same-origin", headers: { "x-graphql-yoga-csrf": "1" } },
    requestPolicy: "cache-and-network",
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? "" };
          return {
            subscribe(sink) {
              return { unsubscribe: resumable(ws, input, sink as unknown as Sink<FormattedExecutionResult<Record<string, unknown>, unknown>>) };
            },
          };
        },
      }),
    ],
  });
  return { client, dispose: () => void ws.dispose() };
}

/**
 * A subscription that misses nothing across reconnects. graphql-ws sends a subscription's payload
 * again, as it is then, each time its socket reconnects: a document that declares `$after`
 * (forwardedEvents) keeps `after` on that payload set to the last event it received, so a
 * reconnect resumes after it and the events of the gap are replayed. When the service says live
 * events are paused (LIVE_DEGRADED: an instance lost Redis, and ends subscriptions rather than
 * let them miss events), the subscription is made again after the `retryAfter` it gives, with
 * `after` too, and the Events page shows "Paused" meanwhile.
 */
function resumable(ws: WsClient, input: SubscribePayload, sink: Sink<FormattedExecutionResult<Record<string, unknown>, unknown>>): () => void {
  const resumes = /\$after\b/.test(input.query);
  // Mutable on purpose: graphql-ws reads it again on every reconnect.
  const payload: { -readonly [K in keyof SubscribePayload]: SubscribePayload[K] } = { ...input, variables: { ...input.variables } };
  let stop = () => {};
  let stopped = false;
  let pausedFor: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = () => {
    pausedFor = undefined;
    stop = ws.subscribe(payload, {
      next(result) {
        const error = result.errors?.[0];
        if (error?.extensions?.code === "LIVE_DEGRADED") {
          pausedFor = Number(error.extensions.retryAfter ?? 5);
          liveState.set("paused");
          return;
        }
        const id = resumes ? (Object.values(result.data ?? {})[0] as { id?: unknown } | null | undefined)?.id : undefined;
        if (typeof id === "string") payload.variables = { ...payload.variables, after: id };
        sink.next(result);
      },
      error: (error) => sink.error(error),
      complete() {
        if (pausedFor === undefined || stopped) return sink.complete();
        timer = setTimeout(() => {
          if (stopped) return;
          liveState.set("live");
          start();
        }, pausedFor * 1000);
      },
    });
  };
  start();
  return () => {
    stopped = true;
    clearTimeout(timer);
    stop();
  };
}
