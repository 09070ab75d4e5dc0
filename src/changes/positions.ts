/**
 * Where every change reader resumes: one `change_position` row per connection and reader, the
 * only place a position is kept (docs/decisions.md, "One change reader, one cursor store").
 *
 * - The connection's own reader, `CONNECTION_READER`: a code change reader whose notifications
 *   name the account (Gmail's historyId, Dropbox's cursor), or the declared polled readers (their
 *   positions by trigger, as JSON). A connector has one or the other, never both.
 * - A subscription's reader: `reader` is its provider_subscription id (a Graph delta link, a
 *   Calendar sync token), so a subscription made again for new triggers starts afresh while one
 *   re-created under the same row reads on.
 *
 * A position moves only after the events read up to it are stored: a crash in between re-reads
 * (and deduplicates) rather than skips. Three statements write the table beside this one, each in
 * the same statement or transaction as the row it goes with: the connect flow's save (a connection's
 * first position, connections/store/save.ts), the poller's record (the declared readers' positions,
 * under the poll's lease: connections/store/pollRecord.ts) and a created subscription's record (its
 * reader's first position: subscriptions/queue/recordCreated.ts).
 */
import type { Sql } from "../db/sql.ts";

/** The reader key of a connection's own reader (not a subscription's). */
export const CONNECTION_READER = "";

/** The reader read on to `cursor` (its events are stored). */
export async function movePosition(sql: Sql, connectedAccountId: string, reader: string, cursor: string): Promise<void> {
  await sql.query(
    `insert into change_position (connected_account_id, reader, cursor) values ($1, $2, $3)
     on conflict (connected_account_id, reader) do update set cursor = excluded.cursor`,
    [connectedAccountId, reader, cursor],
    "change_position_move",
  );
}
