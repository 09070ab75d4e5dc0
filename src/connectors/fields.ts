/**
 * The zod field types every section of a connector declaration shares (declaration.ts, api.ts,
 * params.ts, credentials.ts, subscription.ts): defined once here, a module that imports nothing of
 * the declaration, so each section can use them while declaration.ts is still loading.
 */
import * as z from "zod";

/** `sender.id`, `repository.owner.id`, `authorizations[].user_id` (`[]`: every element). */
export const jsonPath = z
  .string()
  .regex(/^[A-Za-z0-9_$@-]+(\[\])?(\.[A-Za-z0-9_$@-]+(\[\])?)*$/, "must be a dot path like sender.id or authorizations[].user_id");

export const httpsUrl = z.url({ protocol: /^https$/, error: "must be an https:// URL" });

/** A regular expression a whole value must match: anchored with ^ and $, and compilable. */
export const anchoredPattern = z
  .string()
  .refine((p) => p.startsWith("^") && p.endsWith("$"), "must be anchored with ^ and $")
  .refine((p) => {
    try {
      new RegExp(p);
      return true;
    } catch {
      return false;
    }
  }, "must be a valid regular expression");

export const headerName = z.string().regex(/^[a-z0-9-]+$/, "must be a lower-case HTTP header name");
