import { createTtlCache } from "../cache/ttlCache.ts";
import type { Clock } from "../clock.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Sql } from "../db/sql.ts";
import { serviceCredentials } from "./serviceDefaults.ts";

/**
 * What an inbound webhook needs before it can verify anything: does the deployment exist, and which
 * webhook secret is in force for the connector. One plain SQL statement (no Prisma on the hot path),
 * cached per instance for at most INBOUND_CREDENTIALS_TTL_MS.
 */
export interface InboundCredentials {
  webhookSecret: string | undefined;
}

/**
 * How long an instance may keep using what it read. Storing or deleting operator credentials and
 * confirming or discarding a verification token drop the entry on the instance that ran them, so it
 * sees the change at once; OTHER instances see it at most this long afterwards (a webhook signed
 * with a just-changed secret may be refused there for up to a second — providers redeliver).
 */
export const INBOUND_CREDENTIALS_TTL_MS = 1_000;
const INBOUND_CREDENTIALS_MAX_ENTRIES = 10_000;

export interface InboundSecretsDeps {
  sql: Sql;
  box: SecretBox;
  connectorEnv: Record<string, string | undefined>;
  clock: Clock;
  ttlMs?: number;
}

/** Deployment + webhook secret per connector for inbound webhooks and the poller, kept ≤ 1 s per instance. */
export function createInboundSecrets({ sql, box, connectorEnv, clock, ttlMs = INBOUND_CREDENTIALS_TTL_MS }: InboundSecretsDeps) {
  const cache = createTtlCache<string, InboundCredentials>({ ttlMs, maxEntries: INBOUND_CREDENTIALS_MAX_ENTRIES, clock });
  const keyOf = (deploymentId: string, connector: string) => `${deploymentId}\u0000${connector}`;

  async function read(deploymentId: string, def: Pick<ConnectorDefinition, "name">): Promise<InboundCredentials | undefined> {
    const rows = await sql.query<{ webhook_secret_encrypted: string | null; verification_token_encrypted: string | null }>(
      // Only a confirmed verification token: one that merely arrived is anyone's.
      `select c.webhook_secret_encrypted, v.token_encrypted as verification_token_encrypted
       from deployment d
       left join connector_credentials c on c.deployment_id = d.id and c.connector = $2
       left join lateral (
         select token_encrypted from webhook_verification_token
         where deployment_id = d.id and connector = $2 and confirmed_at is not null
         order by confirmed_at desc limit 1
       ) v on true
       where d.id = $1`,
      [deploymentId, def.name],
      "inbound_credentials",
    );
    const row = rows[0];
    if (!row) return undefined;
    // Same rule as the OAuth client's: the operator's secret when stored, else the service default
    // (an own OAuth app without one still verifies); a confirmed verification token only when
    // neither is configured.
    const configured = row.webhook_secret_encrypted ? box.open(row.webhook_secret_encrypted) : serviceCredentials(connectorEnv, def).webhookSecret;
    return { webhookSecret: configured ?? (row.verification_token_encrypted ? box.open(row.verification_token_encrypted) : undefined) };
  }

  return {
    /** undefined: there is no such deployment. */
    async get(deploymentId: string, def: Pick<ConnectorDefinition, "name">): Promise<InboundCredentials | undefined> {
      const key = keyOf(deploymentId, def.name);
      const hit = cache.get(key);
      if (hit) return hit;
      const at = clock.now().getTime();
      const value = await read(deploymentId, def);
      // A deployment that does not exist is not cached: nothing to go stale.
      if (value) cache.set(key, value, at);
      return value;
    },
    /** This instance sees a change it made at once. */
    invalidate(deploymentId: string, connector: string): void {
      cache.delete(keyOf(deploymentId, connector));
    },
  };
}

export type InboundSecrets = ReturnType<typeof createInboundSecrets>;
