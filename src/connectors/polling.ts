/**
 * The `polling` section of a connector declaration: how a trigger the provider never pushes is read
 * from one of its list endpoints with the account's token, as data. The poller (src/polling/poller.ts) reads it
 * every POLL_INTERVAL (never more often than `minIntervalSeconds`); src/polling/reader.ts turns one list answer
 * into events and the position to read from next.
 *
 * `docs/polling.md` explains every field with the three declared readers as examples.
 */
import * as z from "zod";
import { apiRequestSchema, isBodilessGet } from "./request.ts";

/** The placeholder in a query value that is replaced by the stored position (a page token, a "since" time). */
export const CURSOR_PLACEHOLDER = "{cursor}";

/**
 * The section's schema, given the declaration's dot-path type (`sender.id`, `items[].id`): the
 * connector declaration passes its own, so both read paths by one rule and neither module imports the other.
 */
export function pollingSchema(jsonPath: z.ZodString) {
  /**
   * The one request shape (../request.ts): GET `{path}` under the connection's API base
   * (`api.connectionBaseUrl`, else `api.baseUrl`) with the account's token in the declared style,
   * `headers` added (GitHub's `application/vnd.github.star+json` for star times). A query value
   * holding `{cursor}` gets the stored position; the parameter is left out while there is none (the
   * first read, or nothing seen yet). A list is read with GET and no body.
   */
  const read = { message: "a polled read is a GET without a body", path: ["method"] };
  const requestSchema = apiRequestSchema.refine(isBodilessGet, read);

  const polledTriggerSchema = z
    .object({
      request: requestSchema,
      /** Where the list is in the answer (`items`, `changes`); absent: the answer is the list itself. */
      items: jsonPath.optional(),
      /** The item's id, within an item. */
      id: jsonPath,
      /**
       * What changes when the item changes (`updated_at`, `played_at`, `time`): an item is forwarded
       * once per (id, version). Absent: once per id.
       */
      version: jsonPath.optional(),
      /** Where the item's time is, first readable wins, forwarded as the event's occurredAt; none readable: the poll time. */
      occurredAt: z.array(jsonPath).default([]),
      /**
       * How the position moves.
       * - `answer`: the provider names it — the first of `paths` present in the answer (Spotify
       *   `cursors.after`; Drive `nextPageToken`, then `newStartPageToken`). Kept when none is.
       * - `version`: the greatest version seen (a time or a number): items not newer are not
       *   forwarded, and `{cursor}` sends it as a "since" filter where the provider takes one.
       */
      cursor: z.discriminatedUnion("from", [
        z.object({ from: z.literal("answer"), paths: z.array(jsonPath).min(1) }).strict(),
        z.object({ from: z.literal("version") }).strict(),
      ]),
      /** When the answer has a value here, another page is read at once with the new position (Drive `nextPageToken`). */
      more: jsonPath.optional(),
      /** Pages read in one poll at most; the rest is read by the next poll from the stored position. */
      maxPages: z.number().int().min(1).max(100).default(10),
      /**
       * A request that answers the current position without listing anything (Drive
       * `changes/startPageToken`), for the first read; absent: the first list answer gives it.
       */
      start: apiRequestSchema.extend({ cursor: jsonPath }).strict().refine(isBodilessGet, read).optional(),
    })
    .strict()
    .refine((t) => t.cursor.from !== "version" || t.version, { message: "a version cursor needs a version path", path: ["version"] });

  return z
    .object({
      /** The provider's documented limit on how often one account may be read; POLL_INTERVAL below it is raised to it. */
      minIntervalSeconds: z.number().int().positive().default(60),
      /** Polled trigger name (one of the connector's `triggers`) → how it is read. */
      triggers: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/, "must be a trigger name"), polledTriggerSchema),
    })
    .strict()
    .refine((p) => Object.keys(p.triggers).length > 0, { message: "needs at least one polled trigger", path: ["triggers"] });
}

export type PollingDeclaration = z.output<ReturnType<typeof pollingSchema>>;
export type PolledTriggerDeclaration = PollingDeclaration["triggers"][string];
export type PollRequestDeclaration = PolledTriggerDeclaration["request"];
