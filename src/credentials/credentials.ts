import { connectorEnvPrefix, findConnector } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import type { Db } from "../db/database.ts";
import { badInput, notFound, parseInput, unknownConnector } from "../errors.ts";
import type { Services } from "../services.ts";
import { randomBytes } from "node:crypto";
import { z } from "zod";

/**
 * Which OAuth app (client id and secret) and which webhook secret a deployment uses for a
 * connector: the operator's own (ConnectorCredentials, secrets sealed) or the service's defaults
 * (`CONNECTOR_<NAME>_CLIENT_ID/_CLIENT_SECRET/_WEBHOOK_SECRET`).
 */
export interface ResolvedCredentials {
  /** Absent only with service defaults that were never configured. */
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** "operator": the deployment's own OAuth app (no consent page); "service": the defaults. */
  source: "operator" | "service";
}

/** An OAuth client that can actually run a flow: both halves present. */
export interface OAuthClientCredentials extends ResolvedCredentials {
  clientId: string;
  clientSecret: string;
}

export function serviceCredentials(env: Record<string, string | undefined>, def: Pick<ConnectorDefinition, "name">) {
  const prefix = connectorEnvPrefix(def);
  const read = (suffix: string) => env[`${prefix}${suffix}`]?.trim() || undefined;
  return { clientId: read("CLIENT_ID"), clientSecret: read("CLIENT_SECRET"), webhookSecret: read("WEBHOOK_SECRET") };
}

/**
 * The OAuth client in force for `deploymentId` and `connector` (a definition or a name): the
 * connect flow's and token refresh's. Inbound webhooks read their secret through the
 * InboundCredentialsCache below instead.
 */
export async function resolveCredentials(
  services: Pick<Services, "db" | "box" | "config">,
  deploymentId: string,
  connector: ConnectorDefinition | string,
): Promise<ResolvedCredentials> {
  const name = typeof connector === "string" ? connector : connector.name;
  const defaults = serviceCredentials(services.config.connectorEnv, { name });
  const own = await services.db.connectorCredentials.findUnique({ where: { deploymentId_connector: { deploymentId, connector: name } } });
  if (!own) return { clientId: defaults.clientId, clientSecret: defaults.clientSecret, source: "service" };
  return { clientId: own.clientId, clientSecret: services.box.open(own.clientSecretEncrypted), source: "operator" };
}

/**
 * What an inbound webhook needs before it can verify anything: does the deployment exist, and which
 * webhook secret is in force for the connector. One plain SQL statement (no Prisma on the hot path),
 * cached per instance for at most INBOUND_CREDENTIALS_TTL_MS.
 */
export interface InboundCredentials {
  webhookSecret: string | undefined;
}

/**
 * How long an instance may keep using what it read. setConnectorCredentials and
 * deleteConnectorCredentials drop the entry on the instance that ran them, so it sees the change at
 * once; OTHER instances see it at most this long afterwards (a webhook signed with a just-changed
 * secret may be refused there for up to a second — providers redeliver).
 */
export const INBOUND_CREDENTIALS_TTL_MS = 1_000;
const INBOUND_CREDENTIALS_MAX_ENTRIES = 10_000;

export interface InboundCredentialsCache {
  /** undefined: there is no such deployment. */
  get(
    services: Pick<Services, "sql" | "box" | "config">,
    deploymentId: string,
    connector: Pick<ConnectorDefinition, "name">,
  ): Promise<InboundCredentials | undefined>;
  invalidate(deploymentId: string, connector: string): void;
}

export function createInboundCredentialsCache(ttlMs = INBOUND_CREDENTIALS_TTL_MS): InboundCredentialsCache {
  const entries = new Map<string, { at: number; value: InboundCredentials }>();
  const keyOf = (deploymentId: string, connector: string) => `${deploymentId}\u0000${connector}`;
  return {
    async get(services, deploymentId, def) {
      const key = keyOf(deploymentId, def.name);
      const hit = entries.get(key);
      if (hit && performance.now() - hit.at < ttlMs) return hit.value;
      const at = performance.now();
      const value = await readInboundCredentials(services, deploymentId, def);
      // A deployment that does not exist is not cached: nothing to go stale.
      if (value) {
        if (entries.size >= INBOUND_CREDENTIALS_MAX_ENTRIES) entries.clear();
        entries.set(key, { at, value });
      }
      return value;
    },
    invalidate(deploymentId, connector) {
      entries.delete(keyOf(deploymentId, connector));
    },
  };
}

async function readInboundCredentials(
  services: Pick<Services, "sql" | "box" | "config">,
  deploymentId: string,
  def: Pick<ConnectorDefinition, "name">,
): Promise<InboundCredentials | undefined> {
  const rows = await services.sql.query<{ webhook_secret_encrypted: string | null; verification_token_encrypted: string | null }>(
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
  // Same rule as resolveCredentials: the operator's secret when stored, else the service default;
  // a confirmed verification token only when neither is configured.
  const fallback = serviceCredentials(services.config.connectorEnv, def).webhookSecret;
  const configured = webhookSecretInForce(services, row.webhook_secret_encrypted, fallback);
  return { webhookSecret: configured ?? (row.verification_token_encrypted ? services.box.open(row.verification_token_encrypted) : undefined) };
}

/** The operator's stored webhook secret, else the service default (an own OAuth app without one still verifies). */
function webhookSecretInForce(services: Pick<Services, "box">, sealed: string | null, serviceDefault: string | undefined) {
  return sealed ? services.box.open(sealed) : serviceDefault;
}

/** How many unconfirmed verification tokens are kept per deployment and connector: the newest. */
export const MAX_UNCONFIRMED_VERIFICATION_TOKENS = 20;

/**
 * A verification token a provider POSTed, unsigned, to the deployment's webhook URL when a
 * subscription was created (Notion's `verification_token`). Kept sealed, for owners and admins to
 * read, paste back at the provider, and confirm.
 *
 * Anyone who knows the webhook URL can send such a body, so arriving puts nothing in force: every
 * token received is kept (the newest MAX_UNCONFIRMED_VERIFICATION_TOKENS unconfirmed ones), and
 * only the one an owner or admin confirms (confirmVerificationToken) verifies events — and only while
 * no webhook secret is configured (the deployment's ConnectorCredentials' or the service's). Until
 * one is confirmed, events are refused 401 and nothing is stored. A forger's tokens are shown beside
 * the provider's with the time each came; the provider's Verify step accepts only its own.
 */
export async function captureVerificationToken(
  services: Pick<Services, "sql" | "box">,
  deploymentId: string,
  connector: Pick<ConnectorDefinition, "name">,
  token: string,
): Promise<void> {
  // One statement: the new row, and the oldest unconfirmed ones past the bound dropped (the
  // subquery does not see the new row, so it keeps one fewer of the older ones).
  await services.sql.query(
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
    [`vtk_${randomBytes(12).toString("hex")}`, deploymentId, connector.name, services.box.seal(token), MAX_UNCONFIRMED_VERIFICATION_TOKENS - 1],
    "capture_verification_token",
  );
}

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

export async function listVerificationTokens(services: Pick<Services, "db" | "box" | "config">, deploymentId: string): Promise<VerificationTokenView[]> {
  const [tokens, credentials] = await Promise.all([
    services.db.webhookVerificationToken.findMany({ where: { deploymentId }, orderBy: [{ connector: "asc" }, { receivedAt: "desc" }, { id: "desc" }] }),
    services.db.connectorCredentials.findMany({ where: { deploymentId }, select: { connector: true, webhookSecretEncrypted: true } }),
  ]);
  return tokens.map((row) => {
    const own = credentials.find((c) => c.connector === row.connector)?.webhookSecretEncrypted;
    const serviceDefault = serviceCredentials(services.config.connectorEnv, { name: row.connector }).webhookSecret;
    return {
      id: row.id,
      connector: row.connector,
      token: services.box.open(row.tokenEncrypted),
      receivedAt: row.receivedAt,
      confirmedAt: row.confirmedAt,
      inForce: row.confirmedAt !== null && !own && !serviceDefault,
    };
  });
}

/** The deployment a token belongs to, for the caller's access check; undefined when there is no such token. */
export async function verificationTokenDeployment(services: Pick<Services, "db">, id: string): Promise<string | undefined> {
  const row = await services.db.webhookVerificationToken.findUnique({ where: { id }, select: { deploymentId: true } });
  return row?.deploymentId;
}

/**
 * Puts one received token in force for its connector (an owner's or admin's decision, after Notion's
 * Verify step accepted it): it is confirmed and every other token of that deployment and connector
 * is not, in one statement.
 */
export async function confirmVerificationToken(
  services: Pick<Services, "db" | "sql" | "box" | "config" | "inboundCredentials">,
  id: string,
): Promise<VerificationTokenView> {
  const row = await services.db.webhookVerificationToken.findUniqueOrThrow({ where: { id }, select: { deploymentId: true, connector: true } });
  await services.sql.query(
    `update webhook_verification_token
     set confirmed_at = case when id = $1 then coalesce(confirmed_at, now()) end
     where deployment_id = $2 and connector = $3 and (id = $1 or confirmed_at is not null)`,
    [id, row.deploymentId, row.connector],
    "confirm_verification_token",
  );
  services.inboundCredentials.invalidate(row.deploymentId, row.connector);
  const view = (await listVerificationTokens(services, row.deploymentId)).find((t) => t.id === id);
  if (!view) throw notFound("Verification token");
  return view;
}

/** Forgets every token held for the connector (confirmed or not). True when there was one. */
export async function discardVerificationToken(
  services: Pick<Services, "db" | "inboundCredentials">,
  deploymentId: string,
  connectorName: string,
): Promise<boolean> {
  const def = knownConnector(connectorName);
  const { count } = await services.db.webhookVerificationToken.deleteMany({ where: { deploymentId, connector: def.name } });
  services.inboundCredentials.invalidate(deploymentId, def.name);
  return count > 0;
}

export function hasOAuthClient(credentials: ResolvedCredentials): credentials is OAuthClientCredentials {
  return Boolean(credentials.clientId && credentials.clientSecret);
}

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

export function knownConnector(name: string): ConnectorDefinition {
  const def = findConnector(name);
  if (!def) throw unknownConnector(name);
  return def;
}

/** Stores (replaces) the operator's own OAuth app for a connector. */
export async function setConnectorCredentials(
  services: Pick<Services, "db" | "box" | "inboundCredentials">,
  deploymentId: string,
  connectorName: string,
  input: { clientId: string; clientSecret: string; webhookSecret?: string | null },
): Promise<CredentialsView> {
  const def = knownConnector(connectorName);
  const values = parseInput(credentialsInput, input);
  const data = {
    clientId: values.clientId,
    clientSecretEncrypted: services.box.seal(values.clientSecret),
    webhookSecretEncrypted: values.webhookSecret ? services.box.seal(values.webhookSecret) : null,
  };
  const row = await services.db.connectorCredentials.upsert({
    where: { deploymentId_connector: { deploymentId, connector: def.name } },
    create: { deploymentId, connector: def.name, ...data },
    update: data,
  });
  services.inboundCredentials.invalidate(deploymentId, def.name);
  return toView(row);
}

/** Back to the service defaults. True when something was deleted. */
export async function deleteConnectorCredentials(
  services: Pick<Services, "db" | "inboundCredentials">,
  deploymentId: string,
  connectorName: string,
): Promise<boolean> {
  const def = knownConnector(connectorName);
  const { count } = await services.db.connectorCredentials.deleteMany({ where: { deploymentId, connector: def.name } });
  services.inboundCredentials.invalidate(deploymentId, def.name);
  return count > 0;
}

export async function listConnectorCredentials(db: Db, deploymentId: string): Promise<CredentialsView[]> {
  const rows = await db.connectorCredentials.findMany({ where: { deploymentId }, orderBy: { connector: "asc" } });
  return rows.map(toView);
}
