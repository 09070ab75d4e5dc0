import { GraphQLError } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config.ts";
import { addressKey } from "../ratelimit/limiter.ts";
import type { GraphQLContext } from "./context.ts";

/**
 * How much live work one client may hold open on this instance (docs/security.md, "Websockets and
 * event streams"). Subscriptions hold memory, a bus listener and a connection for as long as the
 * client likes, so each is counted until it ends:
 *
 * - connections per client address: graphql-ws sockets and SSE streams together (WS_MAX_PER_ADDRESS);
 * - operations at once on one socket (SUBSCRIPTIONS_MAX_PER_SOCKET, checked in ./websockets.ts);
 * - subscriptions per principal — a user, whatever their sessions, or an API key
 *   (SUBSCRIPTIONS_MAX_PER_PRINCIPAL) — and per client address (SUBSCRIPTIONS_MAX_PER_ADDRESS),
 *   over websockets and SSE alike.
 *
 * Addresses are grouped as the rate limits group them (an IPv6 /64 is one client). Over a cap the
 * one subscription is refused with RATE_LIMITED and `extensions.limit`; the socket and its other
 * subscriptions carry on. Counts are per instance, in memory: they bound what one process holds.
 */
export type LiveLimitsConfig = Pick<Config, "wsMaxPerAddress" | "subscriptionsMaxPerSocket" | "subscriptionsMaxPerPrincipal" | "subscriptionsMaxPerAddress">;

export interface LiveLimits {
  readonly maxConnectionsPerAddress: number;
  /** Whether `ip` may open one more websocket or event stream. */
  connectionAllowed(ip: string): boolean;
  /** Counts an open connection of `ip`; call the result when it closes. */
  addConnection(ip: string): () => void;
  /** The error for one more operation on a socket already running `running` (this one included), if over. */
  socketFull(running: number): GraphQLError | undefined;
  /** Counts a subscription starting, or answers the error that refuses it. */
  startSubscription(principal: Principal | undefined, ip: string): { release: () => void } | { error: GraphQLError };
}

const refused = (message: string, limit: number) => new GraphQLError(message, { extensions: { code: "RATE_LIMITED", limit } });

export function createLiveLimits(config: LiveLimitsConfig): LiveLimits {
  const connections = new Map<string, number>();
  const byPrincipal = new Map<string, number>();
  const byAddress = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const remove = (counts: Map<string, number>, key: string) => {
    const left = (counts.get(key) ?? 1) - 1;
    if (left > 0) counts.set(key, left);
    else counts.delete(key);
  };
  const once = (release: () => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };

  return {
    maxConnectionsPerAddress: config.wsMaxPerAddress,
    connectionAllowed: (ip) => (connections.get(addressKey(ip)) ?? 0) < config.wsMaxPerAddress,
    addConnection(ip) {
      const key = addressKey(ip);
      add(connections, key);
      return once(() => remove(connections, key));
    },
    socketFull: (running) =>
      running > config.subscriptionsMaxPerSocket
        ? refused(
            `At most ${config.subscriptionsMaxPerSocket} operations may run at once on one websocket. Complete one first, or open another socket.`,
            config.subscriptionsMaxPerSocket,
          )
        : undefined,
    startSubscription(principal, ip) {
      const address = addressKey(ip);
      const who = principal === undefined ? undefined : principal.kind === "user" ? `user:${principal.userId}` : `key:${principal.apiKeyId}`;
      if (who !== undefined && (byPrincipal.get(who) ?? 0) >= config.subscriptionsMaxPerPrincipal) {
        const limit = config.subscriptionsMaxPerPrincipal;
        return { error: refused(`At most ${limit} subscriptions may run at once for one user or API key. End one before starting another.`, limit) };
      }
      if ((byAddress.get(address) ?? 0) >= config.subscriptionsMaxPerAddress) {
        const limit = config.subscriptionsMaxPerAddress;
        return { error: refused(`At most ${limit} subscriptions may run at once from one address. End one before starting another.`, limit) };
      }
      if (who !== undefined) add(byPrincipal, who);
      add(byAddress, address);
      return {
        release: once(() => {
          if (who !== undefined) remove(byPrincipal, who);
          remove(byAddress, address);
        }),
      };
    },
  };
}

/** Marks a context built by ./websockets.ts: its subscriptions already hold a counted socket. */
export type LiveContext = GraphQLContext & { liveSocket?: true; request?: Request };

/**
 * Counts every subscription that streams — over graphql-ws, or SSE (which also counts as a
 * connection of its address) — from its start to its end. Runs after the cost limit, so a refused
 * operation holds nothing. A subscription over plain JSON never streams (yoga refuses it), so it
 * is not counted.
 */
export function useLiveLimits(limits: LiveLimits): Plugin {
  return {
    onSubscribe: ({ args, setResultAndStopExecution }) => {
      const ctx = args.contextValue as unknown as LiveContext;
      const accept = ctx.request?.headers.get("accept") ?? "";
      const overSse = !ctx.liveSocket && (accept.includes("text/event-stream") || accept.includes("multipart/mixed"));
      if (!ctx.liveSocket && !overSse) return;
      let closeConnection = () => {};
      if (overSse) {
        if (!limits.connectionAllowed(ctx.ip)) {
          const limit = limits.maxConnectionsPerAddress;
          setResultAndStopExecution({
            errors: [refused(`At most ${limit} live connections (websockets and event streams) may be open from one address. Close one first.`, limit)],
          });
          return;
        }
        closeConnection = limits.addConnection(ctx.ip);
      }
      const started = limits.startSubscription(ctx.principal, ctx.ip);
      if ("error" in started) {
        closeConnection();
        setResultAndStopExecution({ errors: [started.error] });
        return;
      }
      const release = () => {
        started.release();
        closeConnection();
      };
      return {
        onSubscribeResult: ({ result, setResult }) => {
          if (isAsyncIterable(result)) setResult(releasing(result, release));
          else release();
        },
      };
    },
  };
}

/** `source`, calling `release` once when it ends: done, returned (the client left), thrown or failed. */
function releasing<T>(source: AsyncIterable<T>, release: () => void): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const wrapped: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => wrapped,
    async next() {
      try {
        const step = await iterator.next();
        if (step.done) release();
        return step;
      } catch (error) {
        release();
        throw error;
      }
    },
    async return(value?: unknown) {
      release();
      return iterator.return ? iterator.return(value) : { done: true as const, value: undefined };
    },
    async throw(error?: unknown) {
      release();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
  };
  return wrapped;
}
