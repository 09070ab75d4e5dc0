import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { DatabaseOutage } from "../db/outage.ts";
import type { RateLimit } from "../ratelimit/limiter.ts";
import { type ContextCapabilities, createContexts } from "./context.ts";
import { createPlainRequestHandler, refusedRequestResponse } from "./plainRequests.ts";
import type { OriginPolicy } from "./requestGuard.ts";
import { createGraphQLWebSockets } from "./websockets.ts";
import { createGraphQLServer } from "./yoga.ts";

/** What /graphql is built from: the capabilities resolvers reach by name, and how the server behaves. */
export interface GraphQLDeps {
  config: Config;
  logger: Logger;
  databaseOutage: DatabaseOutage;
  origins: OriginPolicy;
  capabilities: ContextCapabilities;
  /** The per-user rate limit API callers share with REST. */
  userRateLimit: RateLimit;
}

/**
 * Everything behind /graphql: the schema, yoga and its plugins, the plain-request fast path and graphql-ws.
 * This module is the GraphQL half of the server's modules; ./endpoint.ts imports it on the first
 * /graphql request or websocket, not at start-up (docs/decisions.md, "The server is bundled").
 */
export function buildGraphQL({ config, logger, databaseOutage, origins, capabilities, userRateLimit }: GraphQLDeps) {
  const contexts = createContexts(capabilities, userRateLimit);
  const yoga = createGraphQLServer({ config, logger, databaseOutage, origins, contexts });
  return {
    yoga,
    servePlainRequest: createPlainRequestHandler(yoga, origins),
    refusedRequestResponse,
    createWebSockets: () => createGraphQLWebSockets({ config, yoga, origins, contexts }),
  };
}

export type GraphQL = ReturnType<typeof buildGraphQL>;
