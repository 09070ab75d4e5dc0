import type { Sql } from "../../db/sql.ts";
import { HELD, held } from "./held.ts";
import { renewAt } from "./policy.ts";
import type { SubscriptionWork } from "./row.ts";

export interface Created {
  providerId: string;
  providerResourceId: string | null;
  /** Null keeps what the row holds (a secret a handshake stored while the create was in flight). */
  secretSealed: string | null;
  expiresAt: Date | null;
  /** When to look it up again where it does not expire (the declared check); null: never. */
  checkAt: Date | null;
  /** Where the change reader starts (the declared `changes.start`); a position already held is kept, so a re-creation skips nothing. */
  cursor?: string | null;
}

/** recordCreated: PENDING/ACTIVE/FAILED (leased) → ACTIVE with the provider's new subscription, due at renewal (or its next check); false when the lease was lost (the caller deletes what it made). */
export async function recordCreated(sql: Sql, work: SubscriptionWork, created: Created, now: Date): Promise<boolean> {
  const rows = await sql.query(
    // Events changed by a plan meanwhile: recorded, but PENDING and due now, so it is re-created for them.
    `with recorded as (
       update provider_subscription set provider_id = $3, provider_resource_id = $4, secret_encrypted = coalesce($5, secret_encrypted),
         status = case when events = $9::text[] then 'ACTIVE'::"ProviderSubscriptionStatus" else 'PENDING'::"ProviderSubscriptionStatus" end,
         next_attempt_at = case when events = $9::text[] then $8::timestamp else $7::timestamp end,
         expires_at = $6::timestamp, last_renewed_at = $7::timestamp, lease_until = null,
         last_error = null, failing_since = null, failures = 0, updated_at = $7::timestamp
       where ${HELD}
       returning id, connected_account_id
     ), started as (
       -- The change reader's first position, under the same lease: one already held is kept.
       insert into change_position (connected_account_id, reader, cursor)
       select connected_account_id, id, $10::text from recorded where $10::text is not null
       on conflict (connected_account_id, reader) do nothing
     )
     select id from recorded`,
    [
      ...held(work),
      created.providerId,
      created.providerResourceId,
      created.secretSealed,
      created.expiresAt?.toISOString() ?? null,
      now.toISOString(),
      (renewAt(now, created.expiresAt) ?? created.checkAt)?.toISOString() ?? null,
      work.events,
      created.cursor || null,
    ],
    "subscriptions_record_created",
  );
  return rows.length > 0;
}
