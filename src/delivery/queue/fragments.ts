/**
 * SQL fragments the queue's statements share, each evaluated against the `delivery` row being
 * updated. Named so that one rule reads the same in every statement.
 */

/** The forwarding URL in force (what the claim will use anyway), so an answer shows where it goes. */
export const URL_IN_FORCE = `coalesce((select s.forwarding_url from forwarding_settings s where s.deployment_id = delivery.deployment_id), url)`;

/** Whether the delivery's deployment forwards now (its settings are ACTIVE). */
export const FORWARDING_ACTIVE = `exists (select 1 from forwarding_settings s where s.deployment_id = delivery.deployment_id and s.status = 'ACTIVE')`;

/**
 * Due now when the deployment forwards; held (null) while paused, disabled or without a URL. `now`
 * is the statement's parameter holding the app's clock (every statement of the queue takes its time
 * from clock.now(), never the database's now(), so a test moves the clock instead of waiting).
 */
export const dueNow = (now: string) => `case when ${FORWARDING_ACTIVE} then ${now}::timestamp end`;

/**
 * Held: PENDING with no next_attempt_at. Forwarding is paused or disabled, or no URL is saved yet;
 * no claim reads it, and only resume (or a retry, replay or new URL while ACTIVE) makes it due.
 */
export const HELD = `(delivery.status = 'PENDING' and delivery.next_attempt_at is null)`;

/** The value of next_attempt_at that holds a row. */
export const HOLD = `null`;

/** Not claimed by a worker at `now` (no lease, or an expired one): its attempt is not in flight. */
export const notInFlight = (now: string) => `(delivery.locked_until is null or delivery.locked_until < ${now}::timestamp)`;

/**
 * The deployment's signing secrets in force at `now`, still sealed, current first (then the previous
 * one during a rotation's overlap), as a JSON array: what a claim, or the accepting statement for
 * what it leases, hands the worker so an attempt needs no query of its own. JSON rather than text[]:
 * the driver reads it with JSON.parse instead of pg's character-by-character array parser, which
 * was 3 % of what the service allocated at the maximum rate (a row per delivery).
 */
export const signingSecretsInForce = (deploymentId: string, now: string) =>
  `(select json_agg(k.secret_encrypted order by k.expires_at is null desc, k.created_at desc)
    from signing_secret k where k.deployment_id = ${deploymentId} and (k.expires_at is null or k.expires_at > ${now}::timestamp))`;
