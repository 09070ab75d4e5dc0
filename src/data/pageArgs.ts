import { badInput } from "../errors.ts";
import { DEFAULT_LIMIT, MAX_LIMIT } from "./dataItems.ts";

/** offset: an integer ≥ 0; limit: an integer 1..100. The same rule for REST and GraphQL. */
export function parsePageArgs(args: { offset: number; limit: number }): { offset: number; limit: number } {
  const fields = [];
  if (!Number.isSafeInteger(args.offset) || args.offset < 0) fields.push({ field: "offset", message: "must be an integer ≥ 0" });
  if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > MAX_LIMIT) {
    fields.push({ field: "limit", message: `must be an integer from 1 to ${MAX_LIMIT}` });
  }
  if (fields.length) throw badInput(fields.map((f) => `${f.field} ${f.message}`).join("; "), fields);
  return args;
}

/** Reads `?offset=&limit=` strictly: digits only, each at most once; absent ⇒ the defaults. */
export function parsePageQuery(query: URLSearchParams): { offset: number; limit: number } {
  const read = (name: string, fallback: number) => {
    const values = query.getAll(name);
    if (values.length === 0) return fallback;
    if (values.length > 1 || !/^\d{1,15}$/.test(values[0])) return Number.NaN;
    return Number(values[0]);
  };
  return parsePageArgs({ offset: read("offset", 0), limit: read("limit", DEFAULT_LIMIT) });
}
