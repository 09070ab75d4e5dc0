import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { GraphQLError, NoSchemaIntrospectionCustomRule, type ValidationContext } from "graphql";
import { createYoga, type Plugin } from "graphql-yoga";
import { DATABASE_TIMEOUT_MESSAGE, isStatementTimeout } from "../db/errors.ts";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import { AppError, errorCodes } from "../errors.ts";
import { toGraphQLError } from "./errors.ts";
import type { GraphQLContext, GraphQLContexts } from "./context.ts";
import { useEventStreamIds } from "./eventStream.ts";
import { createGraphiQLPage } from "./graphiqlPage.ts";

const GRAPHIQL_EXAMPLE = `# Who you are, your organizations and their deployments.
# A deployment's health: deployment(id: "…") { deliveryStats(hours: 24) { attemptSuccessRate failingEndpoint { consecutiveFailures } } }
query {
  viewer { email name }
  organizations { id name deployments { id name } }
}
`;
import { useUnstorableInputGuard } from "./inputGuard.ts";
import { type PreparedQuery, useJitQueries } from "./jitQueries.ts";
import { createCostLimit } from "./limits.ts";
import { createLiveLimits, useLiveLimits } from "./liveLimits.ts";
import type { OriginPolicy } from "./requestGuard.ts";
import { schema } from "./schema.ts";

export interface ServerContext {
  ip: string;
}

/** What the context is made from: a fetch Request, or the fast path's view of a node request. */
type RequestHeaders = { headers: { get(name: string): string | null } };

/**
 * Set-Cookie headers that resolvers asked for (logIn, logOut), by request: yoga's responses get them
 * in onResponse, and the plain-request fast path (./plainRequests.ts), which makes no fetch Response, asks `of`.
 */
function useResponseCookies(): Plugin<GraphQLContext> & { of(request: object): string[] } {
  const cookies = new WeakMap<object, string[]>();
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
    of: (request) => cookies.get(request) ?? [],
  };
}

/** The HTTP answer of an operation refused for now: its code's status (503) with the error's Retry-After. */
const unavailable = (refusal: AppError) => ({ status: errorCodes[refusal.code].status, headers: { "retry-after": String(refusal.extra.retryAfterSeconds) } });

/**
 * Expected errors keep their message and `extensions.code`; a statement cancelled by
 * DATABASE_STATEMENT_TIMEOUT is DATABASE_TIMEOUT (as REST's 503 `database_timeout`); anything else
 * is logged with its stack and reaches the client as "Unexpected error." with code INTERNAL_SERVER_ERROR.
 */
function maskError({ logger, databaseOutage }: { logger: Logger; databaseOutage: DatabaseOutage }) {
  return (error: unknown): Error => {
    const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
    if (original instanceof AppError) {
      const mapped = toGraphQLError(original);
      // A code the table marks so is answered with its HTTP status too, as a refusal below is.
      const extensions = "graphqlHttpStatus" in errorCodes[original.code] ? { ...mapped.extensions, http: unavailable(original) } : mapped.extensions;
      return error instanceof GraphQLError ? new GraphQLError(mapped.message, { ...error, extensions }) : new GraphQLError(mapped.message, { extensions });
    }
    // graphql-js and envelop plugins speak in GraphQLErrors (validation, variable coercion, armor):
    // their messages are written for clients. yoga's request parser adds the JSON parser's own
    // error as `extensions.originalError`: an internal detail, dropped. (yoga answered 400 only
    // because of it; `spec: false` keeps the 400.)
    if (original instanceof GraphQLError) {
      if (!original.extensions.originalError) return error as Error;
      const { originalError: _internal, http, ...extensions } = original.extensions as { originalError: unknown; http?: object };
      return new GraphQLError(original.message, { nodes: original.nodes, path: original.path, extensions: { ...extensions, ...(http && { http: { ...http, spec: false } }) } });
    }
    if (isStatementTimeout(original)) {
      logger.warn({ err: original }, "a GraphQL operation's statement ran past DATABASE_STATEMENT_TIMEOUT");
      return new GraphQLError(DATABASE_TIMEOUT_MESSAGE, {
        ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
        extensions: { code: "DATABASE_TIMEOUT" },
      });
    }
    // A database outage or a full disk is not a bug: SERVICE_UNAVAILABLE (HTTP 503 with Retry-After), logged once.
    const refusal = databaseOutage.refusal(original);
    if (refusal) {
      const mapped = toGraphQLError(refusal);
      return new GraphQLError(mapped.message, {
        ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
        extensions: { ...mapped.extensions, http: unavailable(refusal) },
      });
    }
    logger.error({ err: original }, "unexpected error in a GraphQL operation");
    return new GraphQLError("Unexpected error.", {
      ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    });
  };
}

/**
 * Depth, alias and directive limits answer like the cost limit (BAD_USER_INPUT) and as validation
 * errors, not exceptions: over graphql-ws an exception in validation would close the whole socket.
 */
const reportLimit = (context: ValidationContext | null, error: GraphQLError) =>
  context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, ""), { extensions: { code: "BAD_USER_INPUT" } }));
const asValidationError = { onReject: [reportLimit], propagateOnRejection: false };

/**
 * GET (and urlencoded POST) requests carry `variables` and `extensions` as JSON text, which yoga
 * parses without a catch: text that is not JSON (`variables=%00`) became an unexpected error.
 * It is the client's mistake: 400, BAD_REQUEST, like every other malformed parameter.
 */
function useMalformedParamsRefused(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      const parse = requestParser;
      setRequestParser(async (request) => {
        try {
          return await parse(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw new GraphQLError('The "variables" and "extensions" parameters must be JSON text.', { extensions: { code: "BAD_REQUEST", http: { status: 400 } } });
        }
      });
    },
  };
}

/** GRAPHQL_INTROSPECTION=false: `__schema` and `__type` are refused at validation. */
function useNoIntrospection(): Plugin {
  return { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) };
}

/** What /graphql is built from: who is calling (./context.ts), how errors are reported, the settings it obeys. */
export interface GraphQLServerDeps {
  config: Config;
  logger: Logger;
  databaseOutage: DatabaseOutage;
  origins: OriginPolicy;
  contexts: GraphQLContexts;
}

export function createGraphQLServer({ config, logger, databaseOutage, origins, contexts }: GraphQLServerDeps) {
  const production = config.env === "production";
  const introspection = config.graphqlIntrospection;
  const responseCookies = useResponseCookies();
  const jitQueries = useJitQueries();
  const liveLimits = createLiveLimits(config);
  const costLimit = createCostLimit();
  const graphiqlPage = createGraphiQLPage();
  const unstorableInputGuard = useUnstorableInputGuard();
  // A reconnecting EventSource resends the last `id:` it saw (forwardedEvents resumes after it).
  const buildContext = (request: RequestHeaders, ip: string, carried?: { request: object; params: object }): Promise<GraphQLContext> =>
    contexts.create(
      {
        authorization: request.headers.get("authorization") ?? undefined,
        cookie: request.headers.get("cookie") ?? undefined,
        "x-api-key": request.headers.get("x-api-key") ?? undefined,
      },
      ip,
      request.headers.get("last-event-id") || undefined,
      carried,
    );
  // By request: the context the plain-request fast path (./plainRequests.ts) made before handing the request to
  // yoga after all (an error to report, a refusal to word): yoga's context factory takes that one,
  // so a caller is authenticated, and its rate limit spent, once per request whichever path answers.
  const builtContexts = new WeakMap<object, Promise<GraphQLContext>>();
  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    // GraphiQL cannot work without introspection: it is served exactly when introspection is on.
    // Opens on a query that shows something (not yoga's boilerplate); the console links here with
    // its own deployment's id in `?variables=`.
    graphiql: introspection && { title: "Switchyard GraphQL", defaultQuery: GRAPHIQL_EXAMPLE },
    // Bundled, not fetched from a CDN: it works offline and behind strict egress rules. Imported on
    // the first GraphiQL page only: the bundle is a 9 MB module that holds ~32 MB of heap once loaded.
    // Never framed, and only its own scripts run (./graphiqlPage.ts).
    renderGraphiQL: graphiqlPage.render,
    cors: origins.cors,
    logging: false,
    // graphql/endpoint.ts buffers the body under GRAPHQL_BODY_LIMIT (413) before yoga sees it; yoga's own limit
    // would pipe that buffer through a web TransformStream again, which doubled the cost of a POST.
    maxRequestBodySize: false,
    maskedErrors: { maskError: maskError({ logger, databaseOutage }), isDev: false },
    // The context the fast path already made for this request, when it handed the request back.
    context: ({ request, ip }) => builtContexts.get(request) ?? buildContext(request, ip),
    plugins: [
      graphiqlPage.plugin,
      useMalformedParamsRefused(),
      responseCookies,
      useEventStreamIds(),
      unstorableInputGuard,
      EnvelopArmorPlugin({
        maxDepth: { n: 12, ...asValidationError },
        maxAliases: { n: 20, ...asValidationError },
        maxDirectives: { n: 20, ...asValidationError },
        maxTokens: { n: 3000 },
        // Replaced by createCostLimit (./limits.ts), which reads list sizes from the variables too.
        costLimit: { enabled: false },
        blockFieldSuggestion: { enabled: production },
      }),
      ...(introspection ? [] : [useNoIntrospection()]),
      costLimit.plugin,
      // Last: only an operation every other check let through holds a subscription slot.
      useLiveLimits(liveLimits),
      jitQueries,
    ],
  });
  /**
   * What the plain-request fast path needs to answer a query yoga has already prepared (parsed, validated,
   * compiled) for the same text without yoga: the prepared query, the checks yoga's execute hooks
   * make on every request's variables, and the request's context. test/graphql/plainRequests.test.ts
   * checks that these are all the hooks that can change an error-free answer.
   */
  const preparedQueries = {
    find: jitQueries.prepared,
    /** Whether the unstorable-input guard or the cost limit would refuse these variables. */
    refuses: (prepared: PreparedQuery, variables: Record<string, unknown> | undefined) =>
      unstorableInputGuard.refuses(prepared.document, variables) || costLimit.error(schema, prepared.document, prepared.operationName, variables) !== undefined,
    /** The request's context as yoga would make it, made once (yoga takes the same one if it answers after all). */
    context: (request: RequestHeaders, ip: string, params: object): Promise<GraphQLContext> => {
      // With the request and params yoga's own context would carry.
      const built = buildContext(request, ip, { request, params });
      builtContexts.set(request, built);
      return built;
    },
  };
  return Object.assign(yoga, { responseCookies: responseCookies.of, compileQueriesOf: jitQueries.serve, preparedQueries, liveLimits, costLimit });
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;
