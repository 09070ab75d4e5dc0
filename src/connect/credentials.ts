/**
 * API_KEY and BASIC connections: what the end user typed on the hosted connect form, checked by
 * the connector's declared test request before anything is stored. The answer is the credential to
 * seal (the key, or `base64(user:password)`), the account it belongs to, and the params to keep
 * (the session's, and the non-secret fields); or why not — a field that does not fit, the
 * provider refusing the credentials (401/403), or the provider not answering usefully.
 * Nothing here stores or logs a credential.
 */
import type { Config } from "../config.ts";
import { authModeOf } from "../connections/authModes/index.ts";
import { withCredential } from "../connectors/api.ts";
import { type ConnectionApi, connectionApi } from "../connectors/connectionApi.ts";
import { pathWithQuery } from "../connectors/request.ts";
import { type CredentialsDeclaration, fillCredentialTemplate, publicValues } from "../connectors/credentials.ts";
import { asString, valueAt } from "../connectors/json.ts";
import { namesTenantHost } from "../connectors/params.ts";
import { createTenantHostAgent, REFUSED_PRIVATE_ADDRESS, refusedByGuard, refusedLiteral } from "../net/ssrf.ts";
import type { ConnectorDefinition, ExternalIdentity } from "../connectors/types.ts";
import { storableOptional, storableText } from "../text/storable.ts";

const TIMEOUT_MS = 15_000;
const MAX_FIELD_LENGTH = 1_000;

export type CredentialCheck =
  | { ok: true; credential: string; identity: ExternalIdentity; params: Record<string, string> }
  /** Field name → what is wrong with it, in words for the form. */
  | { ok: false; kind: "invalid"; errors: Record<string, string> }
  | { ok: false; kind: "refused"; status: number }
  | { ok: false; kind: "unavailable"; reason: string };

/** The declaration of a connector the form serves (API_KEY or BASIC), else undefined. */
export function credentialsOf(def: ConnectorDefinition): CredentialsDeclaration | undefined {
  return authModeOf(def).credentialFields(def);
}

/** Each declared field from the form: present, not too long, matching its pattern. */
export function readCredentialFields(decl: CredentialsDeclaration, form: URLSearchParams): { values: Record<string, string>; errors: Record<string, string> } {
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  for (const field of decl.fields) {
    // Pasted keys often carry a stray space or line break at either end; none is part of a key.
    const value = (form.get(field.name) ?? "").trim();
    values[field.name] = value;
    if (!value) errors[field.name] = `Enter your ${field.label}.`;
    else if (value.length > MAX_FIELD_LENGTH) errors[field.name] = `${field.label} is too long (at most ${MAX_FIELD_LENGTH} characters).`;
    else if (field.pattern && !new RegExp(field.pattern).test(value)) errors[field.name] = `This does not look like a ${field.label}: ${field.help}`;
  }
  return { values, errors };
}

export function createCredentialCheck(deps: { config: Pick<Config, "connectorEnv" | "env"> }) {
  // A tenant-named host is dialled only at the address the guard checked (src/net/ssrf.ts).
  const tenantHosts = createTenantHostAgent(TIMEOUT_MS);
  return {
    async check(def: ConnectorDefinition, sessionParams: Record<string, string>, form: URLSearchParams): Promise<CredentialCheck> {
      const decl = credentialsOf(def);
      if (!decl) throw new Error(`${def.name} is not an API_KEY or BASIC connector`);
      const { values, errors } = readCredentialFields(decl, form);
      if (Object.keys(errors).length > 0) return { ok: false, kind: "invalid", errors };

      const params = { ...sessionParams, ...publicValues(decl, values) };
      const credential = authModeOf(def).wireCredential(decl, values);
      let route: ConnectionApi;
      let url: URL;
      try {
        route = connectionApi(def, deps.config.connectorEnv, { params, metadata: {} }, { allowHttp: deps.config.env !== "production" });
        url = new URL(`${route.base.href.replace(/\/+$/, "")}${pathWithQuery(fillCredentialTemplate(decl.test.path, params, encodeURIComponent), decl.test.query)}`);
      } catch (error) {
        // A non-secret field that cannot be part of a URL (a param was checked when the link was made).
        const field = decl.fields.find((f) => !f.secret && ((def.declaration.api?.baseUrl ?? "").includes(`{${f.name}}`) || decl.test.path.includes(`{${f.name}}`)));
        if (field) return { ok: false, kind: "invalid", errors: { [field.name]: `This does not look like a ${field.label}: ${field.help}` } };
        throw error;
      }
      const body = decl.test.body === undefined ? undefined : JSON.stringify(decl.test.body);
      const signed = withCredential(route.api, url, { accept: "application/json", "user-agent": "Switchyard", ...(body === undefined ? {} : { "content-type": "application/json" }), ...decl.test.headers }, credential);
      // A host the end user named (a WooCommerce store) may point anywhere: never at our own network.
      // Dialled only at the address the guard checked (src/net/ssrf.ts).
      const guarded = deps.config.env === "production" && namesTenantHost(def.declaration.params);
      const refused = guarded ? refusedLiteral(signed.url) : undefined;
      if (refused) return { ok: false, kind: "unavailable", reason: refused };
      let response: Response;
      try {
        const init: RequestInit = { method: decl.test.method, headers: signed.headers as Record<string, string>, body, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) };
        response = await (guarded ? tenantHosts.fetch(signed.url, init) : fetch(signed.url, init));
      } catch (error) {
        if (refusedByGuard(error)) return { ok: false, kind: "unavailable", reason: REFUSED_PRIVATE_ADDRESS };
        return { ok: false, kind: "unavailable", reason: (error as Error).name === "TimeoutError" ? "timed out" : "could not be reached" };
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel();
        return { ok: false, kind: "refused", status: response.status };
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { ok: false, kind: "unavailable", reason: `answered HTTP ${response.status}` };
      }
      let answer: unknown;
      try {
        answer = await response.json();
      } catch {
        return { ok: false, kind: "unavailable", reason: "answered with something other than JSON" };
      }
      const id = asString(valueAt(answer, decl.test.idPath));
      if (!id) return { ok: false, kind: "unavailable", reason: `answered without ${decl.test.idPath}` };
      const displayName = decl.test.displayNamePath ? asString(valueAt(answer, decl.test.displayNamePath)) : undefined;
      return { ok: true, credential, identity: { externalId: storableText(id), displayName: storableOptional(displayName) }, params };
    },
  };
}

export type CredentialChecker = ReturnType<typeof createCredentialCheck>;
