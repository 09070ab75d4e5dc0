/**
 * The one shape of a request a declaration makes to the provider's API with an account's token:
 * the identity read, the credential check, a subscription's create, renew, delete and check calls,
 * and a polled trigger's list and start reads. Each section takes this shape, extended with what it
 * reads from the answer (`idPath`, `errorsPath`, `cursor`, …), and says where it takes less (a
 * polled list is a GET). The path goes under the connection's API base; the credential goes in the
 * connector's declared style (api.ts).
 */
import * as z from "zod";
import { headerName } from "./fields.ts";

export const REQUEST_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export const apiRequestSchema = z
  .object({
    method: z.enum(REQUEST_METHODS).default("GET"),
    /** Under the connection's API base; may carry a query of its own. */
    path: z.string().startsWith("/", "must start with /"),
    /** Query parameters added to the path's. */
    query: z.record(z.string(), z.string()).default({}),
    /** Request headers, over the caller's defaults (a GraphQL endpoint's `content-type`, GitHub's star media type). */
    headers: z.record(headerName, z.string()).default({}),
    /** A JSON object sent as the body (a GraphQL `{"query": …}`, a subscription's create body). */
    body: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type ApiRequestDeclaration = z.output<typeof apiRequestSchema>;

/** A request that reads a list (a polled read, the user's installations): a GET without a body. */
export const isBodilessGet = (request: { method: string; body?: unknown }) => request.method === "GET" && request.body === undefined;

/** `path` with the declared `query` added (its own query kept first). */
export function pathWithQuery(path: string, query: Record<string, string>): string {
  const added = new URLSearchParams(query).toString();
  if (!added) return path;
  return `${path}${path.includes("?") ? "&" : "?"}${added}`;
}
