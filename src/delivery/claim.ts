import type { Sql } from "../db/sql.ts";

/** A due delivery, claimed by one worker until `lockedUntil`, with what is needed to send it. */
export interface ClaimedDelivery {
  id: string;
  deploymentId: string;
  url: string;
  /** Attempts made before this one. */
  attempts: number;
  /** Attempts made before the current cycle of retries: the retry schedule counts from here. */
  cycleStart: number;
  event: {
    id: string;
    connector: string;
    trigger: string;
    account: string;
    occurredAt: Date;
    payload: unknown;
  };
  /** The operator's header as the settings hold it now (the value still sealed). */
  headerKey: string | null;
  headerValueSealed: string | null;
  /**
   * The deployment's signing secrets in force at claim time, still sealed, current first (then the
   * previous one during a rotation's 24 h overlap) — read here so an attempt needs no query of its own.
   */
  signingSecretsSealed: string[];
}

/**
 * Claims up to `limit` due deliveries for `lockMs`. `FOR UPDATE SKIP LOCKED` lets any number of
 * workers (processes, machines) share the queue without waiting on each other or claiming the same
 * row; `locked_until` keeps a row out of every other claim while its attempt is in flight, and
 * makes a crashed worker's claim expire on its own — the row is simply due again.
 *
 * Only deliveries of ACTIVE forwarding settings are claimed, and each goes to the forwarding URL in
 * force now (written back to the row): a pause, a disable or a new URL that commits before the
 * claim is always obeyed, whatever the row says. Held rows (no next_attempt_at) are not even read.
 */
export async function claimDueDeliveries(sql: Sql, limit: number, lockMs: number): Promise<ClaimedDelivery[]> {
  const rows = await sql.query<{
    id: string;
    deployment_id: string;
    url: string;
    attempts: number;
    cycle_start: number;
    event_id: string;
    connector: string;
    trigger: string;
    account: string;
    occurred_at: Date | string;
    payload: unknown;
    header_key: string | null;
    header_value_encrypted: string | null;
    signing_secrets: string[] | null;
  }>(
    `with claimed as (
       update delivery set locked_until = now() + ($2::int * interval '1 millisecond'), url = due.forwarding_url
       from (
         select d.id, s.forwarding_url from delivery d
         join forwarding_settings s on s.deployment_id = d.deployment_id and s.status = 'ACTIVE'
         where d.status = 'PENDING' and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
         order by d.next_attempt_at
         limit $1
         for update of d skip locked
       ) due
       where delivery.id = due.id
       returning delivery.id, delivery.deployment_id, delivery.url, delivery.attempts, delivery.cycle_start, delivery.event_id
     )
     select c.id, c.deployment_id, c.url, c.attempts, c.cycle_start, c.event_id,
            e.connector, e.trigger, e.account, e.occurred_at at time zone 'UTC' as occurred_at, e.payload,
            s.header_key, s.header_value_encrypted,
            (select array_agg(k.secret_encrypted order by k.expires_at is null desc, k.created_at desc)
             from signing_secret k
             where k.deployment_id = c.deployment_id and (k.expires_at is null or k.expires_at > now())) as signing_secrets
     from claimed c
     join trigger_event e on e.id = c.event_id
     left join forwarding_settings s on s.deployment_id = c.deployment_id`,
    [limit, lockMs],
    "claim_due_deliveries",
  );
  return rows.map((row) => ({
    id: row.id,
    deploymentId: row.deployment_id,
    url: row.url,
    attempts: Number(row.attempts),
    cycleStart: Number(row.cycle_start),
    event: {
      id: row.event_id,
      connector: row.connector,
      trigger: row.trigger,
      account: row.account,
      occurredAt: new Date(row.occurred_at),
      payload: typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
    },
    headerKey: row.header_key,
    headerValueSealed: row.header_value_encrypted,
    signingSecretsSealed: row.signing_secrets ?? [],
  }));
}
