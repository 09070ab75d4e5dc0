import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { GraphQLError } from "graphql";
import { createYoga, type Plugin } from "graphql-yoga";
import { AppError, toGraphQLError } from "../errors.ts";
import type { Services } from "../services.ts";
import { createContext, type GraphQLContext } from "./context.ts";
import { schema } from "./schema.ts";

export interface ServerContext {
  ip: string;
}

/** Set-Cookie headers that resolvers asked for (logIn, logOut). */
function useResponseCookies(): Plugin<GraphQLContext> {
  const cookies = new WeakMap<Request, string[]>();
  return {
    onContextBuilding: ({ context }) => {
      const request = (context as unknown as { request: Request }).request;
      return ({ context: built }) => {
        cookies.set(request, built.cookies);
      };
    },
    onResponse: ({ request, response }) => {
      for (const cookie of cookies.get(request) ?? []) response.headers.append("set-cookie", cookie);
    },
  };
}

/**
 * Expected errors keep their message and `extensions.code`; anything else is logged with its
 * stack and reaches the client as "Unexpected error." with code INTERNAL_SERVER_ERROR.
 */
function maskError(services: Services) {
  return (error: unknown): Error => {
    const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
    if (original instanceof AppError) {
      const mapped = toGraphQLError(original);
      return error instanceof GraphQLError ? new GraphQLError(mapped.message, { ...error, extensions: mapped.extensions }) : mapped;
    }
    // graphql-js and envelop plugins speak in GraphQLErrors (validation, variable coercion, armor):
    // their messages are written for clients.
    if (original instanceof GraphQLError) return error as Error;
    services.logger.error({ err: original }, "unexpected error in a GraphQL operation");
    return new GraphQLError("Unexpected error.", {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    });
  };
}

export function createGraphQLServer(services: Services) {
  const production = services.config.env === "production";
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: !production && { title: "Switchyard GraphQL" },
    logging: false,
    // app.ts buffers the body under GRAPHQL_BODY_LIMIT (413) before yoga sees it; yoga's own limit
    // would pipe that buffer through a web TransformStream again, which doubled the cost of a POST.
    maxRequestBodySize: false,
    maskedErrors: { maskError: maskError(services), isDev: false },
    context: ({ request, ip }) =>
      createContext(
        services,
        {
          authorization: request.headers.get("authorization") ?? undefined,
          cookie: request.headers.get("cookie") ?? undefined,
          "x-api-key": request.headers.get("x-api-key") ?? undefined,
        },
        ip,
      ),
    plugins: [
      useResponseCookies(),
      EnvelopArmorPlugin({
        maxDepth: { n: 12 },
        maxAliases: { n: 20 },
        maxDirectives: { n: 20 },
        maxTokens: { n: 3000 },
        costLimit: { maxCost: 20000 },
        blockFieldSuggestion: { enabled: production },
      }),
    ],
  });
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;
