import { findConnector } from "../connectors/registry.ts";
import { badInput } from "../errors.ts";
import type { ConnectionRow } from "./connection.ts";

/** Which connections a listing shows; the same rules for REST's query string and GraphQL's ConnectionFilter. */
export interface ConnectionFilter {
  connector?: string;
  status?: ConnectionRow["status"];
  /** A case-insensitive substring of account, externalId or displayName. */
  search?: string;
}

export const CONNECTION_STATUSES = ["ACTIVE", "REAUTH_REQUIRED", "DISCONNECTED"] as const;
export const MAX_SEARCH_LENGTH = 255;

/**
 * Checks a filter as given (absent, null or "" members mean "any"). A connector that does not exist
 * is a bad value of the filter — 400 `invalid_parameter` naming `connector`, as /api/data answers
 * any value it cannot use — not a 404: the listing itself exists.
 */
export function parseConnectionFilter(input: { connector?: string | null; status?: string | null; search?: string | null }): ConnectionFilter {
  const fields = [];
  const filter: ConnectionFilter = {};
  if (input.connector) {
    if (findConnector(input.connector)) filter.connector = input.connector;
    else fields.push({ field: "connector", message: `there is no connector named "${input.connector.slice(0, 100)}"` });
  }
  if (input.status) {
    if ((CONNECTION_STATUSES as readonly string[]).includes(input.status)) filter.status = input.status as ConnectionFilter["status"];
    else fields.push({ field: "status", message: `must be one of ${CONNECTION_STATUSES.join(", ")}` });
  }
  if (input.search) {
    // eslint-disable-next-line no-control-regex
    if (input.search.length > MAX_SEARCH_LENGTH || /[\u0000-\u001f\u007f]/.test(input.search)) {
      fields.push({ field: "search", message: `must be at most ${MAX_SEARCH_LENGTH} characters, without control characters` });
    } else filter.search = input.search;
  }
  if (fields.length) throw badInput(fields.map((f) => `${f.field}: ${f.message}`).join("; "), fields);
  return filter;
}
