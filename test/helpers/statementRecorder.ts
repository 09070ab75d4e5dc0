import type { Sql } from "../../src/db/sql.ts";

/** A statement as it was sent: its text, its parameters and its prepared statement's name. */
export interface SentStatement {
  text: string;
  params: unknown[];
  name?: string;
}

/**
 * An Sql that keeps every statement sent through it, in order, and passes each on to `sql`.
 * Without `sql` nothing runs: every statement answers no rows (to see what a function would send).
 */
export function statementRecorder(sql?: Sql): { recorder: Sql; sent: SentStatement[] } {
  const sent: SentStatement[] = [];
  const recorder: Sql = {
    query: async (text, params, name) => {
      sent.push({ text, params: params ?? [], name });
      return sql ? sql.query(text, params, name) : [];
    },
    withConnection: (work) => (sql ? sql.withConnection(work) : Promise.reject(new Error("statements are only recorded here: no connection"))),
  };
  return { recorder, sent };
}
