/**
 * SQL fragments the poll schedule's statements (poll*.ts) and the polling health read share,
 * evaluated against a `connected_account` row aliased `a`. The polled (connector, trigger) pairs are
 * the statement's parameters $P_CONNECTORS and $P_TRIGGERS (text[] of one length, polling/targets.ts
 * `polledPairs`).
 */

/** The (connector, trigger, interval) rows the poll statements join on, as parallel arrays. */
export interface PolledPairs {
  connectors: string[];
  triggers: string[];
  intervalsMs: number[];
}

/** The row's deployment lists at least one polled trigger of the row's connector. */
export const LISTED = (connectors: string, triggers: string) => `exists (
  select 1 from forwarding_trigger t
  join unnest(${connectors}::text[], ${triggers}::text[]) as p(connector, trigger) on p.connector = t.connector and p.trigger = t.trigger
  where t.deployment_id = a.deployment_id and t.connector = a.connector)`;

/** Polled: ACTIVE (never REAUTH_REQUIRED or DISCONNECTED) with a listed polled trigger. */
export const POLLED = (connectors: string, triggers: string) => `(a.status = 'ACTIVE' and ${LISTED(connectors, triggers)})`;
