/**
 * A fake provider built from an API_KEY or BASIC connector's declaration: its test request at the
 * declared method and path, answering the declared id and name paths — but only when the
 * credential arrives in the declared style (the key in its header, query parameter or bearer
 * token; `Authorization: Basic base64(user:password)`) and equals the one made from the fields'
 * declared examples. Anything else is the provider's 401. Any other path under the API base
 * answers 200 with what it was sent (for the proxy). Hosts that name connection params
 * (`https://{domain}.freshdesk.com`) are served under a path naming them instead, as the OAuth
 * fake does: the override keeps the placeholder and only the example's path answers.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { apiOf } from "../../../src/connectors/api.ts";
import { fillCredentialTemplate, wireCredential } from "../../../src/connectors/credentials.ts";
import { exampleValues } from "../../../src/connectors/params.ts";
import { connectorEnvPrefix } from "../../../src/connectors/registry.ts";
import type { ConnectorDefinition } from "../../../src/connectors/types.ts";
import { setAt } from "./declared.ts";

export interface FakeCredentialedProvider {
  url: string;
  /** CONNECTOR_<NAME>_API_URL pointing Switchyard at this fake. */
  env(): Record<string, string>;
  /** The fields' declared examples: what the form must be given to be accepted. */
  fields: Record<string, string>;
  /** The credential the fake accepts (what the token endpoint hands out). */
  credential: string;
  /** What the test request answers with. */
  identity: { id: string; displayName: string };
  /** Every request: path, and whether it carried the right credential. */
  requests: Array<{ method: string; path: string; authorized: boolean; headers: IncomingMessage["headers"] }>;
  close(): Promise<void>;
}

/**
 * A provider endpoint of a test's own (webhook registration), answered once the credential is right:
 * given the request (its path under the API base, its body read as JSON or as a form), an answer,
 * or undefined when it is not this route's.
 */
export type CredentialedRoute = (req: { method: string; path: string; body: unknown; url: URL }) => CredentialedAnswer | undefined | Promise<CredentialedAnswer | undefined>;
export type CredentialedAnswer = { status: number; body?: unknown };

export async function startCredentialedProvider(def: ConnectorDefinition, options: { routes?: CredentialedRoute[]; identityId?: string } = {}): Promise<FakeCredentialedProvider> {
  const decl = def.declaration.credentials!;
  const api = apiOf(def.declaration);
  const fields = Object.fromEntries(decl.fields.map((f) => [f.name, f.example]));
  const values = { ...exampleValues(def.declaration.params), ...fields };
  const credential = wireCredential(decl, def.authMode as "API_KEY" | "BASIC", fields);
  // The host part that names params becomes a path prefix: https://{domain}.freshdesk.com → /{domain}.
  const hostParams = [...new URL(def.declaration.api!.baseUrl!.replace(/\{([a-z0-9_]+)\}/g, "p-$1")).host.matchAll(/p-([a-z0-9_]+)/g)].map((m) => m[1]);
  const prefixTemplate = hostParams.map((name) => `/{${name}}`).join("");
  const prefix = fillCredentialTemplate(prefixTemplate, values);
  const testPath = `${prefix}${fillCredentialTemplate(decl.test.path, values, encodeURIComponent)}`;
  const identity = { id: options.identityId ?? "42", displayName: `${def.displayName} Test Account` };
  const requests: FakeCredentialedProvider["requests"] = [];

  const authorized = (req: IncomingMessage, url: URL) => {
    const style = api.auth;
    if (style.style === "bearer") return req.headers.authorization === `Bearer ${credential}`;
    if (style.style === "basic") return req.headers.authorization === `Basic ${credential}`;
    if (style.style === "header") return req.headers[style.header] === `${style.prefix}${credential}`;
    return url.searchParams.get(style.param) === credential;
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const ok = authorized(req, url);
    requests.push({ method: req.method ?? "GET", path: url.pathname, authorized: ok, headers: req.headers });
    const reply = (status: number, body: unknown) => {
      if (body === undefined) {
        res.writeHead(status);
        return res.end();
      }
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (!url.pathname.startsWith(`${prefix}/`)) return reply(404, { error: "no such tenant" });
    if (!ok) return reply(401, { error: "unauthorized" });
    const path = url.pathname.slice(prefix.length);
    let body: unknown;
    try {
      // Twilio's API takes form-encoded bodies, the others JSON.
      body = !raw ? undefined : req.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ? Object.fromEntries(new URLSearchParams(raw)) : JSON.parse(raw);
    } catch {
      return reply(400, { errors: [{ message: "invalid JSON" }] });
    }
    for (const route of options.routes ?? []) {
      const answer = await route({ method: req.method ?? "GET", path, body, url });
      if (answer) return reply(answer.status, answer.body);
    }
    if (req.method === decl.test.method && url.pathname === testPath) {
      const body: Record<string, unknown> = {};
      // A number: providers answer numeric ids (Freshdesk, Postmark) that become the string externalId.
      setAt(body, decl.test.idPath, /^\d+$/.test(identity.id) ? Number(identity.id) : identity.id);
      if (decl.test.displayNamePath) setAt(body, decl.test.displayNamePath, identity.displayName);
      return reply(200, body);
    }
    return reply(200, { proxied: url.pathname.slice(prefix.length) });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    env: () => ({ [`${connectorEnvPrefix(def)}API_URL`]: `${base}${prefixTemplate}` }),
    fields,
    credential,
    identity,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
