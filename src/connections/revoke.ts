import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import { resolveEndpoints } from "../connectors/registry.ts";
import type { ConnectorDefinition } from "../connectors/types.ts";
import { type ClientCredentials, hasOAuthClient } from "../credentials/clientCredentials.ts";

/**
 * Revokes a deleted connection's grant at the provider, as the connector declares
 * (`oauth.revocation`). Best effort by design: the tokens are already forgotten here when this
 * runs, so a provider that is down or refuses only costs a warning (the grant then lapses at the
 * provider, or the end user removes the app there); it never fails the deletion.
 */
export interface TokensToRevoke {
  deploymentId: string;
  connectedAccountId: string;
  accessToken: string | null;
  refreshToken: string | null;
}

export type RevokeOutcome = "revoked" | "not_declared" | "no_token" | "failed";

const REVOCATION_TIMEOUT_MS = 10_000;

/** application/x-www-form-urlencoded encoding of a Basic credential part (RFC 6749 §2.3.1). */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");

/**
 * `switchyard_grant_revocations_total{connector,outcome}`: how deleted connections' grants fared at
 * the provider (`revoked`, `failed`, `no_token`); connectors that declare no revocation are not counted.
 */
export function createGrantRevocationMetrics() {
  let revocations: Counter<"connector" | "outcome"> | undefined;
  return {
    count(connector: string, outcome: RevokeOutcome) {
      if (outcome !== "not_declared") revocations?.inc({ connector, outcome });
    },
    registerOn(registry: Registry) {
      revocations = new Counter({
        name: "switchyard_grant_revocations_total",
        help: "Grants of deleted connections revoked at the provider, by connector and outcome (revoked, failed, no_token)",
        labelNames: ["connector", "outcome"] as const,
        registers: [registry],
      });
    },
  };
}

export type GrantRevocationMetrics = ReturnType<typeof createGrantRevocationMetrics>;

export function createRevocation(deps: {
  connectorEnv: Record<string, string | undefined>;
  production: boolean;
  clientCredentials: ClientCredentials;
  logger: Logger;
  metrics?: Pick<GrantRevocationMetrics, "count">;
}) {
  return async function revoke(def: ConnectorDefinition, tokens: TokensToRevoke): Promise<RevokeOutcome> {
    const outcome = await attempt(def, tokens);
    deps.metrics?.count(def.name, outcome);
    return outcome;
  };

  async function attempt(def: ConnectorDefinition, tokens: TokensToRevoke): Promise<RevokeOutcome> {
    const spec = def.oauth.revocation;
    const url = resolveEndpoints(def, deps.connectorEnv).revocationUrl;
    if (!spec || !url) return "not_declared";
    const token = spec.token === "refresh" ? (tokens.refreshToken ?? tokens.accessToken) : tokens.accessToken;
    if (!token) return "no_token";
    const log = { connector: def.name, connectedAccountId: tokens.connectedAccountId };
    try {
      const headers: Record<string, string> = { accept: "application/json" };
      const fields: Record<string, string> = spec.clientAuth === "bearer_token" ? {} : { [spec.tokenParam]: token };
      let target = url;
      if (spec.clientAuth === "bearer_token") headers.authorization = `Bearer ${token}`;
      if (spec.clientAuth === "client_secret_basic" || spec.clientAuth === "client_secret_post" || url.includes("{clientId}")) {
        const credentials = await deps.clientCredentials.resolve(tokens.deploymentId, def);
        if (!hasOAuthClient(credentials)) {
          deps.logger.warn(log, "grant not revoked at the provider: no OAuth client is configured any more");
          return "failed";
        }
        target = url.replaceAll("{clientId}", encodeURIComponent(credentials.clientId));
        if (spec.clientAuth === "client_secret_basic") {
          headers.authorization = `Basic ${Buffer.from(`${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`).toString("base64")}`;
        } else if (spec.clientAuth === "client_secret_post") {
          Object.assign(fields, { [spec.clientFields.id]: credentials.clientId, [spec.clientFields.secret]: credentials.clientSecret });
        }
      }
      if (deps.production && !target.startsWith("https:")) throw new Error("the revocation URL is not https");
      // The declared query, and with `body: "query"` the fields too, go in the URL.
      const inUrl = spec.body === "query" ? { ...spec.query, ...fields } : spec.query;
      if (Object.keys(inUrl).length > 0) {
        const withQuery = new URL(target);
        for (const [name, value] of Object.entries(inUrl)) withQuery.searchParams.set(name, value);
        target = withQuery.toString();
      }
      let body: string | undefined;
      if (spec.body !== "query" && spec.body !== "none" && (Object.keys(fields).length > 0 || spec.method === "POST")) {
        headers["content-type"] = spec.body === "json" ? "application/json" : "application/x-www-form-urlencoded";
        body = spec.body === "json" ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
      }
      const response = await fetch(target, { method: spec.method, headers, body, redirect: "error", signal: AbortSignal.timeout(REVOCATION_TIMEOUT_MS) });
      const text = await response.text().catch(() => "");
      // Slack answers every call 200 and says `ok: false` in the body.
      const refused = !response.ok || /"ok"\s*:\s*false/.test(text);
      if (refused) {
        deps.logger.warn({ ...log, status: response.status }, "the provider refused to revoke a deleted connection's grant");
        return "failed";
      }
      deps.logger.info(log, "grant revoked at the provider");
      return "revoked";
    } catch (error) {
      deps.logger.warn({ ...log, reason: (error as Error).message }, "could not revoke a deleted connection's grant at the provider");
      return "failed";
    }
  }
}

export type Revoke = ReturnType<typeof createRevocation>;
