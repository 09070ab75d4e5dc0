import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type ExecutionArgs, GraphQLError } from "graphql";
import { CloseCode } from "graphql-ws";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { AppError, toGraphQLError } from "../errors.ts";
import { clientIp } from "../http/node.ts";
import type { Services } from "../services.ts";
import { createContext, resolvePrincipal } from "./context.ts";
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
 * authorized by scope-auth, which answers UNAUTHENTICATED or FORBIDDEN as over HTTP.
 */
export function attachGraphQLWebSockets(server: Server, services: Services, yoga: GraphQLServer) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path !== "/graphql") {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws, request));
  };
  server.on("upgrade", onUpgrade);

  const credentialsOf = (params: ConnectionParams | undefined, request: IncomingMessage) => {
    const text = (value: unknown) => (typeof value === "string" && value ? value : undefined);
    return {
      authorization: text(params?.authorization) ?? text(params?.Authorization),
      "x-api-key": text(params?.["x-api-key"]),
      cookie: request.headers.cookie,
    };
  };

  const disposable = useServer<ConnectionParams>(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onConnect: async (ctx) => {
        try {
          await resolvePrincipal(services, credentialsOf(ctx.connectionParams, ctx.extra.request));
          return true;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          // 4401/4429 with the reason, so clients (and `switchyard listen`) can say what to fix.
          ctx.extra.socket.close(error.code === "RATE_LIMITED" ? 4429 : CloseCode.Unauthorized, error.message);
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, parse, validate } = yoga.getEnveloped({ services });
        let contextValue;
        try {
          contextValue = await createContext(services, credentialsOf(ctx.connectionParams, ctx.extra.request), clientIp(ctx.extra.request));
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
    async close() {
      server.off("upgrade", onUpgrade);
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
