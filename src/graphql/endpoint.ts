import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { SESSION_COOKIE } from "../auth/principal.ts";
import type { BodyGate } from "../http/bodyGate.ts";
import { clientIp, writeFetchResponse, writeResponse } from "../http/node.ts";
import { refuseGraphQLRequest } from "./requestGuard.ts";
import type { GraphQL, GraphQLDeps } from "./server.ts";

export const GRAPHQL_BODY_LIMIT = 1024 * 1024;
/**
 * The body limit of a /graphql request that carries no credential at all (no API key, bearer token
 * or session cookie): what an anonymous caller may run (signUp, logIn, viewer) fits many times over,
 * and a stranger cannot make the service buffer a full GRAPHQL_BODY_LIMIT before knowing who it is.
 */
export const GRAPHQL_ANONYMOUS_BODY_LIMIT = 64 * 1024;

const carriesCredentials = (headers: IncomingMessage["headers"]) =>
  Boolean(headers["x-api-key"] || headers.authorization || headers.cookie?.includes(SESSION_COOKIE));

type WebSockets = ReturnType<GraphQL["createWebSockets"]>;

/**
 * /graphql on the HTTP front door (POST, GET, SSE) and its websockets. The schema, yoga and
 * graphql-ws (./server.ts) are imported and built on the first request or upgrade that needs them:
 * they were half of a start's modules, and /readyz does not need them. Built once per app.
 */
export function createGraphQLEndpoint(deps: GraphQLDeps & { bodies: BodyGate }) {
  const { config, origins, bodies } = deps;
  let built: Promise<GraphQL> | undefined;
  let sockets: Promise<WebSockets> | undefined;
  let closing: Promise<void> | undefined;
  const graphql = () => (built ??= import("./server.ts").then(({ buildGraphQL }) => buildGraphQL(deps)));

  /** Serves a /graphql request on node's own request and response. */
  async function serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // Before anything is read or run: cross-site requests must not ride on the session cookie.
    const refusal = refuseGraphQLRequest(origins, req.method ?? "GET", req.headers);
    if (refusal) {
      writeResponse(res, refusal);
      return;
    }
    const ip = clientIp(req, config.trustProxyHops);
    // Buffered here so the body limit applies before yoga parses anything.
    const limit = carriesCredentials(req.headers) ? GRAPHQL_BODY_LIMIT : GRAPHQL_ANONYMOUS_BODY_LIMIT;
    const [body, { yoga, servePlainRequest, refusedRequestResponse }] = await Promise.all([
      req.method === "POST" ? bodies.read(req, ip, limit) : undefined,
      graphql(),
    ]);
    // Plain JSON POSTs and query GETs (API clients, the console) skip yoga's fetch layer; the rest goes through it.
    if (await servePlainRequest(req, res, url, body, ip)) return;
    try {
      const response = await yoga.fetch(url, { method: req.method, headers: req.headers as Record<string, string>, body: body as BodyInit | undefined }, { ip });
      await writeFetchResponse(res, response);
    } catch (error) {
      // Malformed params yoga throws instead of answering: its 400, not a 500.
      const refused = refusedRequestResponse(error);
      if (!refused || res.headersSent) throw error;
      await writeFetchResponse(res, refused);
    }
  }

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (closing) {
      socket.destroy();
      return;
    }
    socket.on("error", () => socket.destroy()); // a client gone while graphql-ws loads
    (sockets ??= graphql().then(({ createWebSockets }) => createWebSockets())).then(
      (live) => live.onUpgrade(request, socket, head),
      () => socket.destroy(),
    );
  };

  return {
    serve,
    /** Hooks graphql-ws onto a server whose requests `serve` answers. */
    attach(server: Server) {
      server.on("upgrade", onUpgrade);
    },
    /** Ends websockets (never built: nothing to end). */
    closeLive: () =>
      (closing ??= (async () => {
        await (await sockets)?.close();
      })()),
    async dispose() {
      if (built) await (await built).yoga.dispose();
    },
  };
}

export type GraphQLEndpoint = ReturnType<typeof createGraphQLEndpoint>;
