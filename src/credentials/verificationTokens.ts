import { knownConnector } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import { randomId, type SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { Sql } from "../db/sql.ts";
import { notFound } from "../errors.ts";
import type { InboundSecrets } from "./inboundSecrets.ts";
import { serviceCredentials } from "./serviceDefaults.ts";

/** How many unconfirmed verification tokens are kept per deployment and connector: the newest. */
export const MAX_UNCONFIRMED_VERIFICATION_TOKENS = 20;

/** What owners and admins see of a received verification token: the token itself, to paste at the provider. */
export interface VerificationTokenView {
  id: string;
  connector: string;
  token: string;
  receivedAt: Date;
  /** When an owner or admin confirmed it; null while it is only received. */
  confirmedAt: Date | null;
  /** It is the key inbound events are checked with: confirmed, and no webhook secret is configured for the connector. */
  inForce: boolean;
}

export interface VerificationTokensDeps {
  db: Db;
  sql: Sql;
  box: SecretBox;
  connectorEnv: Record<string, string | undefined>;
  inboundSecrets: Pick<InboundSecrets, "invalidate">;
}

/**
 * Verification tokens a provider POSTs, unsigned, to the deployment's webhook URL when a
 * subscription is created (connectors that declare `webhook.verificationToken`: Notion's). Kept
 * sealed, for owners and admins to read, paste back at the provider, and confirm.
 *
 * Anyone who knows the webhook URL can send such a body, so arriving puts nothing in force: every
 * token received is kept (the newest MAX_UNCONFIRMED_VERIFICATION_TOKENS unconfirmed ones), and
 * only the one an owner or admin confirms verifies events — and only while no webhook secret is
 * configured (the deployment's ConnectorCredentials' or the service's). Until one is confirmed,
 * events are refused 401 and nothing is stored. A forger's tokens are shown beside the provider's
 * with the time each came; the provider's Verify step accepts only its own.
 */
export function createVerificationTokens({ db, sql, box, connectorEnv, inboundSecrets }: VerificationTokensDeps) {
  async function list(deploymentId: string): Promise<VerificationTokenView[]> {
    const [tokens, credentials] = await Promise.all([
      db.webhookVerificationToken.findMany({ where: { deploymentId }, orderBy: [{ connector: "asc" }, { receivedAt: "desc" }, { id: "desc" }] }),
      db.connectorCredentials.findMany({ where: { deploymentId }, select: { connector: true, webhookSecretEncrypted: true } }),
    ]);
    return tokens.map((row) => {
      const own = credentials.find((c) => c.connector === row.connector)?.webhookSecretEncrypted;
      const serviceDefault = serviceCredentials(connectorEnv, { name: row.connector }).webhookSecret;
      return {
        id: row.id,
        connector: row.connector,
        token: box.open(row.tokenEncrypted),
        receivedAt: row.receivedAt,
        confirmedAt: row.confirmedAt,
        inForce: row.confirmedAt !== null && !own && !serviceDefault,
      };
    });
  }

  return {
    /** Keeps a token that arrived (unsigned, so anyone's): never in force by itself. */
    async capture(deploymentId: string, connector: Pick<ConnectorDefinition, "name">, token: string): Promise<void> {
      // One statement: the new row, and the oldest unconfirmed ones past the bound dropped (the
      // subquery does not see the new row, so it keeps one fewer of the older ones).
      await sql.query(
        `with kept as (
           insert into webhook_verification_token (id, deployment_id, connector, token_encrypted)
           values ($1, $2, $3, $4)
           returning id
         )
         delete from webhook_verification_token
         where id in (
           select id from webhook_verification_token
           where deployment_id = $2 and connector = $3 and confirmed_at is null
           order by received_at desc, id desc
           offset $5
         )`,
        [randomId("vtk"), deploymentId, connector.name, box.seal(token), MAX_UNCONFIRMED_VERIFICATION_TOKENS - 1],
        "capture_verification_token",
      );
    },

    list,

    /** The deployment a token belongs to, for the caller's access check; undefined when there is no such token. */
    async deploymentOf(id: string): Promise<string | undefined> {
      const row = await db.webhookVerificationToken.findUnique({ where: { id }, select: { deploymentId: true } });
      return row?.deploymentId;
    },

    /**
     * Puts one received token in force for its connector (an owner's or admin's decision, after the
     * provider's Verify step accepted it): it is confirmed and every other token of that deployment
     * and connector is not, in one statement.
     */
    async confirm(id: string): Promise<VerificationTokenView> {
      const row = await db.webhookVerificationToken.findUniqueOrThrow({ where: { id }, select: { deploymentId: true, connector: true } });
      await sql.query(
        `update webhook_verification_token
         set confirmed_at = case when id = $1 then coalesce(confirmed_at, now()) end
         where deployment_id = $2 and connector = $3 and (id = $1 or confirmed_at is not null)`,
        [id, row.deploymentId, row.connector],
        "confirm_verification_token",
      );
      inboundSecrets.invalidate(row.deploymentId, row.connector);
      const view = (await list(row.deploymentId)).find((t) => t.id === id);
      if (!view) throw notFound("Verification token");
      return view;
    },

    /** Forgets every token held for the connector (confirmed or not). True when there was one. */
    async discard(deploymentId: string, connectorName: string): Promise<boolean> {
      const def = knownConnector(connectorName);
      const { count } = await db.webhookVerificationToken.deleteMany({ where: { deploymentId, connector: def.name } });
      inboundSecrets.invalidate(deploymentId, def.name);
      return count > 0;
    },
  };
}

export type VerificationTokens = ReturnType<typeof createVerificationTokens>;
