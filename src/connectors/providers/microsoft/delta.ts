/**
 * One round of a Graph delta query, as every Graph delta function pages it
 * (https://learn.microsoft.com/en-us/graph/delta-query-overview): each answer lists changed items in
 * `value` and ends with an `@odata.nextLink` (more pages of this round) or an `@odata.deltaLink`
 * (the round is over; the link reads on from here next time). Both links are followed as given.
 */
import type * as z from "zod";
import { asRecord, asString } from "../../json.ts";
import type { ChangeReadContext } from "../../changes.ts";

/** Pages read per round; a longer round resumes at its next link the next time. */
const MAX_PAGES = 20;

export interface DeltaRound {
  items: Record<string, unknown>[];
  /** Where the next round starts: the round's delta link, or the next link where MAX_PAGES cut it short. */
  link: string | undefined;
  /** Whether the round reached its delta link (false: MAX_PAGES cut it short at a next link). */
  complete: boolean;
}

/** Reads from `link` (a delta or next link, or a round's first request) until the delta link or MAX_PAGES; throws as fetchJson does. */
export async function deltaRound(fetchJson: ChangeReadContext["fetchJson"], link: string): Promise<DeltaRound> {
  const items: Record<string, unknown>[] = [];
  let next: string | undefined = link;
  let last: string | undefined;
  for (let page = 0; next && page < MAX_PAGES; page++) {
    const answer: Record<string, unknown> = asRecord(await fetchJson(next)) ?? {};
    for (const item of Array.isArray(answer.value) ? answer.value : []) if (asRecord(item)) items.push(item as Record<string, unknown>);
    next = asString(answer["@odata.nextLink"]);
    last = next ?? asString(answer["@odata.deltaLink"]) ?? last;
  }
  return { items, link: last, complete: next === undefined && last !== undefined };
}

/**
 * One round on from a stored link; undefined when Graph answers 410 Gone (the link is too old to
 * read on from: a resync is required, so the caller takes a fresh position). Throws otherwise, as fetchJson does.
 */
export async function readOnFrom(fetchJson: ChangeReadContext["fetchJson"], link: string): Promise<DeltaRound | undefined> {
  try {
    return await deltaRound(fetchJson, link);
  } catch (error) {
    if (asRecord(error)?.status === 410) return undefined;
    throw error;
  }
}

/** A stored delta position as `schema` describes it; undefined when there is none or it is unreadable (a fresh one is taken). */
export function parsePosition<T>(schema: z.ZodType<T>, cursor: string | undefined): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(cursor ?? ""));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
