import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type ExecutionArgs, GraphQLError } from "graphql";
import { CloseCode } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { AppError } from "../errors.ts";
import { toGraphQLError } from "./errors.ts";
import { clientIp } from "../http/node.ts";
import type { Config } from "../config.ts";
import type { GraphQLContexts } from "./context.ts";
import type { LiveContext } from "./liveLimits.ts";
import { fromForeignPage, type OriginPolicy, usesSessionCookie } from "./requestGuard.ts";
import type { GraphQLServer } from "./yoga.ts";

type ConnectionParams = { authorization?: unknown; "x-api-key"?: unknown; [key: string]: unknown };

/**
 * graphql-ws on the HTTP server's port and path (/graphql), through yoga's envelop pipeline (the
 * same parse, validation limits, error masking and schema as HTTP).
 *
 * The caller is authenticated when the connection opens, from `connectionParams`
 * (`authorization: "Bearer <token>"` or `x-api-key`) or the upgrade request's session cookie:
 * wrong credentials close the socket with 4401 (or 4429 when rate limited) and a reason that says
 * why. No credentials at all is allowed to connect; each subscription then resolves the caller
 * again (a revoked key or a logged-out session stops working for new subscriptions) and is
 * authorized by scope-auth, which answers UNAUTHENTICATED or FORBIDDEN as over HTTP. A running
 * subscription ends when its caller loses access (./liveAccess.ts); the socket stays open.
 *
 * Abuse bounds (docs/security.md, "Websockets"): a client address holds at most
 * WS_MAX_PER_ADDRESS sockets and SSE streams together (more sockets are refused with 429 before the
 * handshake); a socket runs at most SUBSCRIPTIONS_MAX_PER_SOCKET operations at once, and
 * subscriptions count against per-principal and per-address caps (./liveLimits.ts); a socket that
 * connected without credentials is closed (4401) after WS_ANONYMOUS_TIMEOUT unless a
 * subscription is running; the session cookie of an upgrade whose Origin is not allowed is never
 * used (such a socket with no other credentials is closed with 4403). Limit violations in one
 * operation (depth, aliases, cost) answer that operation with an `error` message only.
 */
export function createGraphQLWebSockets({ config, yoga, origins, contexts }: { config: Config; yoga: GraphQLServer; origins: OriginPolicy; contexts: GraphQLContexts }) {
  const { wsMaxPerAddress, wsAnonymousTimeoutMs, trustProxyHops } = config;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const limits = yoga.liveLimits;

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path !== "/graphql") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const address = clientIp(request, trustProxyHops);
    if (!limits.connectionAllowed(address)) {
      const body = `At most ${wsMaxPerAddress} GraphQL websockets and event streams may be open from one address.`;
      socket.end(`HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      ws.once("close", limits.addConnection(address));
      wss.emit("connection", ws, request);
    });
  };

  const credentialsOf = (params: ConnectionParams | undefined, request: IncomingMessage) => {
    const text = (value: unknown) => (typeof value === "string" && value ? value : undefined);
    return {
      authorization: text(params?.authorization) ?? text(params?.Authorization),
      "x-api-key": text(params?.["x-api-key"]),
      // A page elsewhere may open a socket here, and the browser attaches our cookie to it.
      cookie: fromForeignPage(origins, request.headers) === undefined ? request.headers.cookie : undefined,
    };
  };

  const disposable = useServer<ConnectionParams>(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onConnect: async (ctx) => {
        const { socket, request } = ctx.extra;
        const credentials = credentialsOf(ctx.connectionParams, request);
        if (!credentials.authorization && !credentials["x-api-key"] && !credentials.cookie && usesSessionCookie(request.headers)) {
          const origin = fromForeignPage(origins, request.headers);
          socket.close(4403, `Forbidden: pages from ${origin} may not use this service's session; send credentials in connectionParams.`);
          return false;
        }
        try {
          if (!(await contexts.resolvePrincipal(credentials))) {
            // Nothing an anonymous socket can subscribe to: without this it would stay open forever.
            const closeIfIdle = () => {
              if (Object.keys(ctx.subscriptions).length > 0) timer = setTimeout(closeIfIdle, wsAnonymousTimeoutMs);
              else socket.close(CloseCode.Unauthorized, "Unauthorized: no credentials were sent and nothing was subscribed to.");
            };
            let timer = setTimeout(closeIfIdle, wsAnonymousTimeoutMs);
            socket.once("close", () => clearTimeout(timer));
          }
          return true;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          // 4401/4429 with the reason, so clients (and `switchyard listen`) can say what to fix.
          socket.close(error.code === "RATE_LIMITED" ? 4429 : CloseCode.Unauthorized, error.message);
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        // This operation is already in ctx.subscriptions.
        const socketFull = limits.socketFull(Object.keys(ctx.subscriptions).length);
        if (socketFull) return [socketFull];
        const { schema, execute, subscribe, parse, validate } = yoga.getEnveloped({});
        let contextValue;
        try {
          contextValue = {
            ...(await contexts.create(credentialsOf(ctx.connectionParams, ctx.extra.request), clientIp(ctx.extra.request, trustProxyHops))),
            liveSocket: true,
          } satisfies LiveContext;
        } catch (error) {
          if (error instanceof AppError) return [toGraphQLError(error)];
          throw error;
        }
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError("The query could not be parsed.")];
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        const tooLarge = yoga.costLimit.error(schema, document, payload.operationName, payload.variables);
        if (tooLarge) return [tooLarge];
        const args: ExecutionArgs = {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue,
          rootValue: { execute, subscribe } satisfies Enveloped,
        };
        return args;
      },
    },
    wss,
  );

  return {
    /** The HTTP server's `upgrade` listener (./endpoint.ts hands each upgrade here). */
    onUpgrade,
    async close() {
      for (const client of wss.clients) client.close(1001, "The server is shutting down.");
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

type Enveloped = {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
};
