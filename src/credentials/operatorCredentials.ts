import { knownConnector } from "../connectors/registry.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import { parseInput } from "../errors.ts";
import { z } from "zod";
import type { InboundSecrets } from "./inboundSecrets.ts";

/** What the API shows of stored credentials: never the secrets, only whether they are set. */
export interface CredentialsView {
  connector: string;
  clientId: string;
  clientSecretSet: boolean;
  webhookSecretSet: boolean;
  updatedAt: Date;
}

const toView = (row: {
  connector: string;
  clientId: string;
  clientSecretEncrypted: string;
  webhookSecretEncrypted: string | null;
  updatedAt: Date;
}): CredentialsView => ({
  connector: row.connector,
  clientId: row.clientId,
  clientSecretSet: row.clientSecretEncrypted.length > 0,
  webhookSecretSet: Boolean(row.webhookSecretEncrypted),
  updatedAt: row.updatedAt,
});

const noControl = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);

const credentialsInput = z.object({
  clientId: z.string().trim().min(1, "must not be empty").max(512).refine(noControl, "must not contain control characters"),
  clientSecret: z.string().min(1, "must not be empty").max(2048).refine(noControl, "must not contain control characters"),
  webhookSecret: z
    .string()
    .max(2048)
    .refine(noControl, "must not contain control characters")
    .nullish()
    .transform((value) => (value ? value : undefined)),
});

/**
 * A deployment's own OAuth app and webhook secret per connector (ConnectorCredentials, secrets
 * sealed): stored, replaced, deleted and listed by owners and admins. Changes drop this
 * instance's inbound-secret entry at once (inboundSecrets.ts).
 */
export function createOperatorCredentials({ db, box, inboundSecrets }: { db: Db; box: SecretBox; inboundSecrets: Pick<InboundSecrets, "invalidate"> }) {
  return {
    async list(deploymentId: string): Promise<CredentialsView[]> {
      const rows = await db.connectorCredentials.findMany({ where: { deploymentId }, orderBy: { connector: "asc" } });
      return rows.map(toView);
    },

    /** Stores (replaces) the operator's own OAuth app for a connector. */
    async set(deploymentId: string, connectorName: string, input: { clientId: string; clientSecret: string; webhookSecret?: string | null }): Promise<CredentialsView> {
      const def = knownConnector(connectorName);
      const values = parseInput(credentialsInput, input);
      const data = {
        clientId: values.clientId,
        clientSecretEncrypted: box.seal(values.clientSecret),
        webhookSecretEncrypted: values.webhookSecret ? box.seal(values.webhookSecret) : null,
      };
      const row = await db.connectorCredentials.upsert({
        where: { deploymentId_connector: { deploymentId, connector: def.name } },
        create: { deploymentId, connector: def.name, ...data },
        update: data,
      });
      inboundSecrets.invalidate(deploymentId, def.name);
      return toView(row);
    },

    /** Back to the service defaults. True when something was deleted. */
    async remove(deploymentId: string, connectorName: string): Promise<boolean> {
      const def = knownConnector(connectorName);
      const { count } = await db.connectorCredentials.deleteMany({ where: { deploymentId, connector: def.name } });
      inboundSecrets.invalidate(deploymentId, def.name);
      return count > 0;
    },
  };
}

export type OperatorCredentials = ReturnType<typeof createOperatorCredentials>;
