import { createClient as createWsClient } from "graphql-ws";
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
export type LiveState = "idle" | "connecting" | "live" | "offline";

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
              const unsubscribe = ws.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
  return { client, dispose: () => void ws.dispose() };
}
