import type { Sql } from "../../db/sql.ts";

/** The sealed tokens a connection held before it was disconnected (to revoke them after the commit). */
export interface ForgottenTokens {
  access_token_encrypted: string;
  refresh_token_encrypted: string | null;
}

/**
 * disconnect: ACTIVE or REAUTH_REQUIRED → DISCONNECTED, its tokens forgotten (the sealed columns
 * overwritten) and the refresh lock cleared. The old sealed tokens come back from the row as it was
 * before this statement (the `old` subquery holds the row lock), so they can be revoked after the
 * commit — never inside it. Undefined when it was DISCONNECTED already (another caller won).
 */
export async function disconnect(sql: Sql, id: string, now: Date): Promise<ForgottenTokens | undefined> {
  const [old] = await sql.query<ForgottenTokens>(
    `update connected_account a
       set status = 'DISCONNECTED', access_token_encrypted = '', refresh_token_encrypted = null, token_expires_at = null,
           refresh_locked_until = null, updated_at = $2::timestamp
     from (select id, access_token_encrypted, refresh_token_encrypted from connected_account
           where id = $1 and status <> 'DISCONNECTED' for update) old
     where a.id = old.id
     returning old.access_token_encrypted, old.refresh_token_encrypted`,
    [id, now.toISOString()],
    "disconnect_connection",
  );
  return old;
}
