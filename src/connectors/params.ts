/**
 * Connection parameters: what a connector needs to know about one end user's tenant before it can
 * reach the provider (a Zendesk `subdomain`, a Shopify `shop`). Declared per connector, given on the
 * auth-url as `params[<name>]=<value>`, kept on the ConnectSession and then on the connection, and
 * filled into the connector's URLs where they name them: `https://{subdomain}.zendesk.com/oauth/tokens`.
 *
 * A `host` parameter ends up in the host of a URL the service calls with the account's token, so
 * its value must be one DNS label (letters, digits, inner hyphens) whatever the declared pattern
 * allows: a value can never add a dot, a port, a path or an `@` to the provider's host. A `path`
 * parameter names something inside the account (a GitLab project id, a Bitbucket repository slug)
 * and only ever fills one path segment of a subscription call (encoded there): its value must be
 * one plain segment (letters, digits, `.`, `_`, `-`, `@` — a Google calendar's id is an address —,
 * starting with a letter or digit). A
 * `hostname` parameter is a whole host the tenant runs itself (a WooCommerce store's
 * `shop.example.com`): lower-cased, a public DNS name of at least two labels whose last is
 * alphabetic — never an IP address, a port, a path, user information or a special-use name
 * (`localhost`, `.internal`, …). Where the name points is checked again on every call
 * (src/net/ssrf.ts): a public name that resolves to a private address is refused then.
 */
import { isIP } from "node:net";
import * as z from "zod";
import { anchoredPattern } from "./fields.ts";

/** One DNS label: what every parameter value must be, on top of its declared pattern. */
const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** One plain path segment: what a `path` parameter's value must be, on top of its declared pattern. */
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/;

/** A DNS name of two labels or more, the last alphabetic (so never an IPv4 address in any spelling). */
const DNS_NAME = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Special-use and private-network names (RFC 6761, RFC 6762, RFC 8375 and common internal zones): never a store on the internet. */
const NOT_PUBLIC = /(?:^|\.)(?:localhost|local|internal|intranet|private|corp|lan|home|test|invalid|onion|arpa|localdomain)$/;

/** A tenant's own public host name (`shop.example.com`), already lower-cased. */
const isPublicHostname = (value: string) => DNS_NAME.test(value) && isIP(value) === 0 && !NOT_PUBLIC.test(value);

const SHAPES = {
  host: (v: string) => HOSTNAME_LABEL.test(v),
  path: (v: string) => PATH_SEGMENT.test(v),
  hostname: isPublicHostname,
} as const;
const MAX_LENGTH = { host: 63, path: 100, hostname: 253 } as const;
type ParamKind = keyof typeof SHAPES;

/** `{name}` in a URL template. */
const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;

export const paramDeclarationSchema = z
  .object({
    /** snake_case; the auth-url parameter is `params[<name>]`, the placeholder `{<name>}`. */
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, "must be snake_case"),
    /** What the operator must pass, in words (shown in the docs and in error messages). */
    description: z.string().min(1),
    /** Anchored regular expression every value must match (e.g. `^[a-z0-9][a-z0-9-]{0,62}$`). */
    pattern: anchoredPattern,
    /** A value matching `pattern`: used to validate the declared URLs, and in the docs. */
    example: z.string().min(1),
    /**
     * host (default): one label of the oauth URLs' hosts (`https://{subdomain}.zendesk.com`);
     * hostname: the whole host of the API URL (`https://{store}/wp-json/wc/v3`), a public DNS name;
     * path: names what the connector's subscription watches (`/projects/{project_id}/hooks`), never a host.
     */
    in: z.enum(["host", "hostname", "path"]).default("host"),
    /** May be left out (a subscription's resource, e.g. Typeform's form): then a path parameter, never in a host. */
    optional: z.boolean().default(false),
    /** What an optional resource parameter means when no resource names it (Google Calendar's `primary`). */
    default: z.string().min(1).optional(),
  })
  .strict()
  .refine((p) => !p.optional || p.in === "path", { message: "an optional parameter names a resource: declare it in: \"path\"", path: ["optional"] })
  .refine((p) => new RegExp(p.pattern).test(p.example) && SHAPES[p.in](p.example), {
    message: "example must match pattern and be one hostname label (a hostname parameter's: a public DNS name; a path parameter's: one path segment)",
    path: ["example"],
  });

export const paramsDeclarationSchema = z.array(paramDeclarationSchema).default([]);
export type ParamDeclaration = z.output<typeof paramDeclarationSchema>;

/** The placeholders a URL template names, in order. */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/**
 * Fills `{name}` placeholders from `values`. Throws when one has no value or a value is not a
 * hostname label (a public host name, for the parameters `declared` as `hostname`): stored values
 * were validated when the auth-url was made, so this is a guard, never the user-facing check.
 */
export function fillTemplate(template: string, values: Record<string, string>, declared: readonly Pick<ParamDeclaration, "name" | "in">[] = []): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the connection has no "${name}" parameter, which its connector's URLs need`);
    if (declared.some((p) => p.name === name && p.in === "hostname")) {
      if (!isPublicHostname(value)) throw new Error(`the connection's "${name}" parameter is not a public host name`);
    } else if (!HOSTNAME_LABEL.test(value)) throw new Error(`the connection's "${name}" parameter is not a hostname label`);
    return value;
  });
}

/** The declared examples as values: what declaration URLs are validated with. */
export function exampleValues(declared: readonly ParamDeclaration[]): Record<string, string> {
  return Object.fromEntries(declared.map((p) => [p.name, p.example]));
}

export type ParamsCheck = { ok: true; values: Record<string, string> } | { ok: false; name: string; message: string };

/**
 * Reads `params[<name>]=<value>` from an auth-url query: every declared parameter once, each
 * matching its pattern; anything else named `params[…]` is unknown. The first problem is returned,
 * naming the parameter.
 */
export function readParams(declared: readonly ParamDeclaration[], query: URLSearchParams): ParamsCheck {
  const given = new Map<string, string[]>();
  for (const [key, value] of query) {
    const match = /^params\[(.*)\]$/s.exec(key);
    if (match) given.set(match[1], [...(given.get(match[1]) ?? []), value]);
    else if (key.startsWith("params")) return { ok: false, name: key, message: `${key} is not a parameter: connection parameters are given as params[<name>]=<value>.` };
  }
  const byName = new Map(declared.map((p) => [p.name, p]));
  for (const name of given.keys()) {
    if (!byName.has(name)) {
      const known = declared.map((p) => p.name).join(", ");
      return { ok: false, name: `params[${name}]`, message: `params[${name}] is not a parameter of this connector (${known ? `it takes ${known}` : "it takes none"}).` };
    }
  }
  const values: Record<string, string> = {};
  for (const param of declared) {
    const list = given.get(param.name) ?? [];
    const field = `params[${param.name}]`;
    // A resource (a path parameter) is never needed to connect: given, it is the first watched resource.
    if (list.length === 0 && (param.optional || param.in === "path")) continue;
    if (list.length === 0) return { ok: false, name: field, message: `${field} is required: ${param.description} (e.g. ${param.example}).` };
    if (list.length > 1) return { ok: false, name: field, message: `Give ${field} once.` };
    // A host name is case-insensitive: kept lower-cased, so one store is one connection parameter.
    const value = param.in === "hostname" ? list[0].toLowerCase() : list[0];
    if (value.length > MAX_LENGTH[param.in as ParamKind] || !new RegExp(param.pattern).test(value) || !SHAPES[param.in as ParamKind](value)) {
      const shape = param.in === "hostname" ? " — a public host name only, without https://, a port, a path or an IP address" : "";
      return { ok: false, name: field, message: `${field} must be ${param.description.replace(/\.$/, "")}${shape}: it must match ${param.pattern} (e.g. ${param.example}).` };
    }
    values[param.name] = value;
  }
  return { ok: true, values };
}

/**
 * Whether a connector's API host is a name its tenant chose (a `hostname` parameter): its calls
 * then check where that name points before each one (src/net/ssrf.ts), in production.
 */
export const namesTenantHost = (declared: readonly Pick<ParamDeclaration, "in">[]): boolean => declared.some((p) => p.in === "hostname");

/** Stored params (a Json column) as string values; anything else is dropped. */
export function storedParams(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/**
 * Resource parameters: the `path` parameters, naming what a subscription watches (a GitLab
 * project, a Trello board). A connection watches zero or more resources, each a value for every one
 * of them; none is needed to connect.
 */
export const resourceParamsOf = (declared: readonly ParamDeclaration[]): ParamDeclaration[] => declared.filter((p) => p.in === "path");

/** What a connection watches: RESOURCES (it names some), NONE (its subscriptions need one and it names none), ACCOUNT otherwise. */
export type Watching = "RESOURCES" | "NONE" | "ACCOUNT";

export function watchingOf(declared: readonly ParamDeclaration[], resourceCount: number, subscribes: boolean): Watching {
  if (resourceCount > 0) return "RESOURCES";
  return subscribes && resourceParamsOf(declared).some((p) => !p.optional) ? "NONE" : "ACCOUNT";
}

/** One resource's params as a stable key (sorted `name=value` pairs): one resource per (connection, key). */
export const resourceKey = (params: Record<string, string>): string =>
  Object.keys(params)
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join("&");

/**
 * A resource's params as given to the API (`{"project_id":"278964"}`): an object naming every
 * resource parameter of the connector once and nothing else, each value a string (a JSON number is
 * taken as its decimal string) matching its declared pattern. The first problem names the parameter.
 */
export function readResourceParams(declared: readonly ParamDeclaration[], given: unknown): ParamsCheck {
  const resources = resourceParamsOf(declared);
  if (resources.length === 0) return { ok: false, name: "params", message: "This connector watches no resources: it takes no resource parameters." };
  if (!given || typeof given !== "object" || Array.isArray(given)) {
    return { ok: false, name: "params", message: `params must be an object naming ${resources.map((p) => p.name).join(", ")}.` };
  }
  const known = resources.map((p) => p.name).join(", ");
  for (const name of Object.keys(given)) {
    if (!resources.some((p) => p.name === name)) return { ok: false, name: `params.${name}`, message: `params.${name} is not a resource parameter of this connector (it takes ${known}).` };
  }
  const values: Record<string, string> = {};
  for (const param of resources) {
    const field = `params.${param.name}`;
    const raw = (given as Record<string, unknown>)[param.name];
    if (raw === undefined || raw === null) return { ok: false, name: field, message: `${field} is required: ${param.description} (e.g. ${param.example}).` };
    const value = typeof raw === "number" && Number.isFinite(raw) ? String(raw) : raw;
    if (typeof value !== "string" || value.length > MAX_LENGTH.path || !new RegExp(param.pattern).test(value) || !SHAPES.path(value)) {
      return { ok: false, name: field, message: `${field} must be ${param.description.replace(/\.$/, "")}: it must match ${param.pattern} (e.g. ${param.example}).` };
    }
    values[param.name] = value;
  }
  return { ok: true, values };
}

/** The params a connection's own calls use: its tenant params, without any resource parameter (those come from a watched resource). */
export function tenantParams(declared: readonly ParamDeclaration[], stored: unknown): Record<string, string> {
  const all = storedParams(stored);
  for (const param of resourceParamsOf(declared)) delete all[param.name];
  return all;
}
