import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { badInput, forbidden, unauthenticated } from "../errors.ts";
import type PrismaTypes from "../generated/pothos-prisma-types.ts";
import { getDatamodel } from "../generated/pothos-prisma-types.ts";
import type { GraphQLContext } from "./context.ts";
import { toGraphQLError } from "./errors.ts";

/** The SchemaBuilder and its plugins, nothing else. Types live in ./types/<domain>.ts. */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
  };
  AuthScopes: {
    loggedIn: boolean;
    user: boolean;
    organizationMember: string;
    organizationAdmin: string;
    deploymentMember: string;
    deploymentAdmin: string;
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: async (ctx) => ({
      loggedIn: ctx.principal !== undefined,
      user: ctx.principal?.kind === "user",
      organizationMember: (id) => ctx.access.canReadOrganization(id),
      organizationAdmin: (id) => ctx.access.canManageOrganization(id),
      deploymentMember: (id) => ctx.access.canReadDeployment(id),
      deploymentAdmin: (id) => ctx.access.canManageDeployment(id),
    }),
    // Not logged in at all ⇒ UNAUTHENTICATED; logged in but not allowed ⇒ FORBIDDEN.
    unauthorizedError: (_parent, ctx) => toGraphQLError(ctx.principal ? forbidden() : unauthenticated()),
  },
});

builder.scalarType("DateTime", {
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    const date = new Date(String(value));
    // Years past 9999 print as "+131050-…", which neither ISO-8601 readers nor the database take.
    const year = date.getUTCFullYear();
    if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) {
      throw toGraphQLError(badInput("DateTime must be an ISO-8601 string between the years 0001 and 9999"));
    }
    return date;
  },
});

builder.scalarType("JSON", {
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({});
builder.mutationType({});
