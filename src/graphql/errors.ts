import { GraphQLError } from "graphql";
import { type AppError, errorCodes } from "../errors.ts";

/** An expected failure (src/errors.ts) as GraphQL says it: `extensions.code` from the one table. */
export function toGraphQLError(error: AppError): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: errorCodes[error.code].graphql,
      ...(error.extra.fields?.length ? { fields: error.extra.fields } : {}),
      ...(error.extra.retryAfterSeconds !== undefined ? { retryAfter: error.extra.retryAfterSeconds } : {}),
    },
  });
}
