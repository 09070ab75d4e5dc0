import type { Sql } from "../../db/sql.ts";
import { HELD, held } from "./held.ts";
import type { SubscriptionWork } from "./row.ts";

/**
 * awaitHandshake: leased → the same, without a secret: the create about to be sent will hand the
 * subscription a new one (secret "handshake"); until then no delivery verifies. False when the lease was lost.
 */
export async function awaitHandshake(sql: Sql, work: SubscriptionWork, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set secret_encrypted = null, updated_at = $3::timestamp where ${HELD} returning id`,
    [...held(work), now.toISOString()],
    "subscriptions_await_handshake",
  );
  return rows.length > 0;
}

/**
 * recordHandshakeSecret: a row whose create is in flight (lease in force) and that has no secret yet
 * → the same, with the secret the provider handed over. Once per create: a second handshake (or
 * anyone else's) finds a secret there and records nothing.
 */
export async function recordHandshakeSecret(sql: Sql, id: string, deploymentId: string, connector: string, secretSealed: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `update provider_subscription set secret_encrypted = $4, updated_at = $5::timestamp
     where id = $1 and deployment_id = $2 and connector = $3 and status <> 'DELETED'
       and secret_encrypted is null and lease_until > $5::timestamp
     returning id`,
    [id, deploymentId, connector, secretSealed, now.toISOString()],
    "subscriptions_record_handshake_secret",
  );
  return rows.length > 0;
}
