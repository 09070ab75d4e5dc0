import { createPrivateKey } from "node:crypto";
import { knownConnector } from "../connectors/registry.ts";
import type { SecretBox } from "../crypto/secrets.ts";
import type { Db } from "../db/database.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import { parseInput } from "../errors.ts";
import * as z from "zod";
import type { InboundSecrets } from "./inboundSecrets.ts";

/** What the API shows of stored credentials: never the secrets, only whether they are set. */
export interface CredentialsView {
  connector: string;
  clientId: string;
  clientSecretSet: boolean;
  webhookSecretSet: boolean;
  /** APP_INSTALLATION connectors: the app's id (or client id) and slug; the private key only as set or not. */
  appId: string | null;
  appSlug: string | null;
  privateKeySet: boolean;
  updatedAt: Date;
}

function isRsaPrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem.trim()).asymmetricKeyType === "rsa";
  } catch {
    return false;
  }
}

const toView = (row: {
  connector: string;
  clientId: string;
  clientSecretEncrypted: string;
  webhookSecretEncrypted: string | null;
  appId: string | null;
  appSlug: string | null;
  privateKeyEncrypted: string | null;
  updatedAt: Date;
}): CredentialsView => ({
  connector: row.connector,
  clientId: row.clientId,
  clientSecretSet: row.clientSecretEncrypted.length > 0,
  webhookSecretSet: Boolean(row.webhookSecretEncrypted),
  appId: row.appId,
  appSlug: row.appSlug,
  privateKeySet: Boolean(row.privateKeyEncrypted),
  updatedAt: row.updatedAt,
});

const noControl = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);

const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine(noControl, "must not contain control characters")
    .nullish()
    .transform((value) => (value ? value : undefined));

/** An APP_INSTALLATION connector's app: its id, slug and PEM private key are required; its OAuth client is optional. */
const appInput = z.object({
  clientId: optionalText(512),
  clientSecret: optionalText(2048),
  webhookSecret: optionalText(2048),
  appId: z.string().trim().min(1, "must not be empty").max(128).regex(/^[A-Za-z0-9._-]+$/, "must be the app's id (digits) or its client id"),
  appSlug: z.string().trim().min(1, "must not be empty").max(100).regex(/^[a-z0-9][a-z0-9-]*$/, "must be the app's slug, as in https://github.com/apps/<slug>"),
  privateKey: z
    .string()
    .max(16_384)
    .refine((v) => /^-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]+-----END (RSA )?PRIVATE KEY-----\s*$/.test(v.trim()), "must be the app's private key in PEM form (-----BEGIN RSA PRIVATE KEY----- …)")
    // Said now, not at the first installation: a key that does not parse as an RSA key could never sign the app's JWT.
    .refine(isRsaPrivateKey, "is not a readable RSA private key: paste the whole .pem file GitHub generated for the app"),
}).refine((v) => Boolean(v.clientId) === Boolean(v.clientSecret), { message: "give both the client id and the client secret, or neither", path: ["clientSecret"] });

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

/** What the operator stores, per kind of client (the connector's auth mode says which: connections/authModes/). */
const STORED: Record<OperatorClient, (input: CredentialsInput, box: SecretBox) => Omit<Prisma.ConnectorCredentialsUncheckedCreateInput, "deploymentId" | "connector">> = {
  app(input, box) {
    const values = parseInput(appInput, input);
    return {
      // Without an OAuth client the columns hold empty strings, read back as "not set".
      clientId: values.clientId ?? "",
      clientSecretEncrypted: values.clientSecret ? box.seal(values.clientSecret) : "",
      webhookSecretEncrypted: values.webhookSecret ? box.seal(values.webhookSecret) : null,
      appId: values.appId,
      appSlug: values.appSlug,
      privateKeyEncrypted: box.seal(values.privateKey.trim()),
    };
  },
  oauthClient(input, box) {
    const values = parseInput(credentialsInput, input);
    return {
      clientId: values.clientId,
      clientSecretEncrypted: box.seal(values.clientSecret),
      webhookSecretEncrypted: values.webhookSecret ? box.seal(values.webhookSecret) : null,
      appId: null,
      appSlug: null,
      privateKeyEncrypted: null,
    };
  },
};

/** An OAuth client (id and secret), or an app (APP_INSTALLATION: id, slug, private key, optional OAuth client). */
export type OperatorClient = "oauthClient" | "app";

/**
 * A deployment's own OAuth app and webhook secret per connector (ConnectorCredentials, secrets
 * sealed): stored, replaced, deleted and listed by owners and admins. Changes drop this
 * instance's inbound-secret entry at once (inboundSecrets.ts).
 */
export function createOperatorCredentials({
  db,
  box,
  inboundSecrets,
  clientOf,
}: {
  db: Db;
  box: SecretBox;
  inboundSecrets: Pick<InboundSecrets, "invalidate">;
  /** Which kind of client a connector's operator stores (its auth mode's strategy says). */
  clientOf: (def: ConnectorDefinition) => OperatorClient;
}) {
  return {
    async list(deploymentId: string): Promise<CredentialsView[]> {
      const rows = await db.connectorCredentials.findMany({ where: { deploymentId }, orderBy: { connector: "asc" } });
      return rows.map(toView);
    },

    /** Stores (replaces) the operator's own OAuth app for a connector. */
    async set(deploymentId: string, connectorName: string, input: CredentialsInput): Promise<CredentialsView> {
      const def = knownConnector(connectorName);
      const data = STORED[clientOf(def)](input, box);
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

/** What setConnectorCredentials takes: an OAuth client, or (APP_INSTALLATION) an app with an optional OAuth client. */
export interface CredentialsInput {
  clientId?: string | null;
  clientSecret?: string | null;
  webhookSecret?: string | null;
  appId?: string | null;
  appSlug?: string | null;
  privateKey?: string | null;
}

export type OperatorCredentials = ReturnType<typeof createOperatorCredentials>;
