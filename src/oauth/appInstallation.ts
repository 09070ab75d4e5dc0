/**
 * APP_INSTALLATION connectors (GitHub Apps): the service authenticates as the app with a short-lived
 * RS256 JWT signed with the app's private key, reads installations with it, and mints one-hour
 * installation tokens. What the provider's paths and answers are is the declaration's `installation`
 * section (connectors/installation.ts); nothing here knows a provider by name.
 */
import { createPrivateKey, sign } from "node:crypto";
import { connectorEnvPrefix, resolveEndpoints } from "../connectors/registry.ts";
import { pathWithQuery } from "../connectors/request.ts";
import { asString, valueAt } from "../connectors/json.ts";
import type { InstallationDeclaration } from "../connectors/installation.ts";
import type { ConnectorDefinition, ExternalIdentity } from "../connectors/types.ts";
import { ProviderUnavailableError, storableIdentity } from "./provider.ts";
import { storableText } from "../text/storable.ts";

const TIMEOUT_MS = 15_000;

/** A GitHub App as the service authenticates as it: the JWT's issuer and the PEM key signing it. */
export interface AppKey {
  appId: string;
  privateKey: string;
}
/** GitHub's advice: iat 60 s in the past, against clock drift. */
const IAT_SKEW_SECONDS = 60;

/** The installation was refused by the provider as unknown or no longer ours (404, 401 for a deleted app's key, 403 suspended). */
export class InstallationRefusedError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "InstallationRefusedError";
  }
}

export function installationOf(def: ConnectorDefinition): InstallationDeclaration {
  const section = def.declaration.installation;
  if (!section) throw new Error(`${def.name} is not an APP_INSTALLATION connector`);
  return section;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");

/** The app's JWT: RS256, iss the app id or client id, iat 60 s ago, exp within the provider's 10 minutes. */
export function appJwt(app: AppKey, now: Date, lifetimeSeconds: number): string {
  const iat = Math.floor(now.getTime() / 1000) - IAT_SKEW_SECONDS;
  const header = b64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const payload = b64url(JSON.stringify({ iat, exp: iat + lifetimeSeconds, iss: app.appId }));
  const key = createPrivateKey(app.privateKey);
  return `${header}.${payload}.${b64url(sign("RSA-SHA256", Buffer.from(`${header}.${payload}`), key))}`;
}

/** Where the browser goes to install the app: the declared install URL (or CONNECTOR_<NAME>_INSTALL_URL) with the slug, plus `state`. */
export function installUrl(def: ConnectorDefinition, env: Record<string, string | undefined>, slug: string, state: string): string {
  const override = env[`${connectorEnvPrefix(def)}INSTALL_URL`]?.trim();
  const template = override || installationOf(def).installUrl;
  const url = new URL(template.replace("{slug}", encodeURIComponent(slug)));
  url.searchParams.set("state", state);
  return url.toString();
}

/** An installation id as the callback and the webhooks carry it: digits only. */
export const INSTALLATION_ID = /^[1-9][0-9]{0,19}$/;

async function call(url: string, init: { method: string; authorization: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.method,
      body: init.body,
      headers: {
        accept: "application/vnd.github+json",
        "x-github-api-version": "2022-11-28",
        "user-agent": "Switchyard",
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers,
        authorization: init.authorization,
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProviderUnavailableError(`${init.method} ${new URL(url).pathname} could not be reached: ${(error as Error).message}`);
  }
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.status >= 500 || (response.ok && body === undefined)) {
    throw new ProviderUnavailableError(`${init.method} ${new URL(url).pathname} answered HTTP ${response.status}`, response.status);
  }
  if (!response.ok) throw new InstallationRefusedError(`${init.method} ${new URL(url).pathname} answered HTTP ${response.status}`, response.status);
  return { status: response.status, body };
}

export interface InstallationToken {
  accessToken: string;
  expiresAt: Date | null;
  /** The permissions granted, `name:level` (`issues:write`). */
  scopes: string[];
}

/** POST the access-token path with the app's JWT: a new installation token (GitHub: one hour). */
export async function mintInstallationToken(
  def: ConnectorDefinition,
  env: Record<string, string | undefined>,
  app: AppKey,
  installationId: string,
  now: Date,
): Promise<InstallationToken> {
  const section = installationOf(def);
  if (!INSTALLATION_ID.test(installationId)) throw new InstallationRefusedError(`"${installationId.slice(0, 40)}" is not an installation id`, 400);
  const { apiUrl } = resolveEndpoints(def, env);
  const request = section.accessToken;
  const { body } = await call(`${apiUrl}${pathWithQuery(request.path.replace("{installation_id}", installationId), request.query)}`, {
    method: request.method,
    authorization: `Bearer ${appJwt(app, now, section.jwtLifetimeSeconds)}`,
    headers: request.headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  const token = asString(valueAt(body, section.tokenPath));
  if (!token) throw new ProviderUnavailableError(`${def.displayName} answered an installation token request without ${section.tokenPath}`);
  const expires = asString(valueAt(body, section.expiresAtPath));
  const expiresAt = expires && !Number.isNaN(Date.parse(expires)) ? new Date(expires) : null;
  const permissions = valueAt(body, section.permissionsPath);
  const scopes =
    permissions && typeof permissions === "object" && !Array.isArray(permissions)
      ? Object.entries(permissions as Record<string, unknown>).map(([name, level]) => storableText(`${name}:${String(level)}`)).sort()
      : [];
  return { accessToken: token, expiresAt, scopes };
}

/** The installation as the app sees it (the declared identity read, with the app's JWT), and when it was created. */
export async function readInstallation(
  def: ConnectorDefinition,
  env: Record<string, string | undefined>,
  app: AppKey,
  installationId: string,
  now: Date,
): Promise<{ identity: ExternalIdentity; createdAt: Date | undefined }> {
  const section = installationOf(def);
  const { apiUrl } = resolveEndpoints(def, env);
  const jwt = appJwt(app, now, section.jwtLifetimeSeconds);
  let raw: unknown;
  const identity = storableIdentity(
    await def.readIdentity({
      now,
      accessToken: jwt,
      token: {},
      apiUrl,
      fetchJson: async (path: string) => {
        raw = (await call(`${apiUrl}${path.replace("{installation_id}", installationId)}`, { method: "GET", authorization: `Bearer ${jwt}` })).body;
        return raw;
      },
    }),
  );
  const created = asString(valueAt(raw, "created_at"));
  return { identity, createdAt: created && !Number.isNaN(Date.parse(created)) ? new Date(created) : undefined };
}

/** Whether the installing user's token reaches the installation (the declared user-installations list). */
export async function userReachesInstallation(
  def: ConnectorDefinition,
  env: Record<string, string | undefined>,
  userToken: string,
  installationId: string,
): Promise<boolean> {
  const section = installationOf(def);
  const { apiUrl } = resolveEndpoints(def, env);
  const request = section.userInstallations;
  const { body } = await call(`${apiUrl}${pathWithQuery(request.path, request.query)}`, { method: "GET", authorization: `Bearer ${userToken}`, headers: request.headers });
  const list = valueAt(body, section.userInstallations.listPath);
  return Array.isArray(list) && list.some((item) => asString(valueAt(item, "id")) === installationId);
}
