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
 * one plain segment (letters, digits, `.`, `_`, `-`, starting with a letter or digit).
 */
import { z } from "zod";
import { anchoredPattern } from "./fields.ts";

/** One DNS label: what every parameter value must be, on top of its declared pattern. */
const HOSTNAME_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** One plain path segment: what a `path` parameter's value must be, on top of its declared pattern. */
const PATH_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const shapeOf = (where: "host" | "path") => (where === "host" ? HOSTNAME_LABEL : PATH_SEGMENT);

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
     * host (default): fills the oauth URLs' hosts (`https://{subdomain}.zendesk.com`); path: names
     * what the connector's subscription watches (`/projects/{project_id}/hooks`), never a host.
     */
    in: z.enum(["host", "path"]).default("host"),
    /** May be left out (a subscription's resource, e.g. Typeform's form): then a path parameter, never in a host. */
    optional: z.boolean().default(false),
  })
  .strict()
  .refine((p) => !p.optional || p.in === "path", { message: "an optional parameter names a resource: declare it in: \"path\"", path: ["optional"] })
  .refine((p) => new RegExp(p.pattern).test(p.example) && shapeOf(p.in).test(p.example), {
    message: "example must match pattern and be one hostname label (a path parameter's: one path segment)",
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
 * hostname label: stored values were validated when the auth-url was made, so this is a guard,
 * never the user-facing check.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the connection has no "${name}" parameter, which its connector's URLs need`);
    if (!HOSTNAME_LABEL.test(value)) throw new Error(`the connection's "${name}" parameter is not a hostname label`);
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
    if (list.length === 0 && param.optional) continue;
    if (list.length === 0) return { ok: false, name: field, message: `${field} is required: ${param.description} (e.g. ${param.example}).` };
    if (list.length > 1) return { ok: false, name: field, message: `Give ${field} once.` };
    const value = list[0];
    if (value.length > (param.in === "host" ? 63 : 100) || !new RegExp(param.pattern).test(value) || !shapeOf(param.in).test(value)) {
      return { ok: false, name: field, message: `${field} must be ${param.description.replace(/\.$/, "")}: it must match ${param.pattern} (e.g. ${param.example}).` };
    }
    values[param.name] = value;
  }
  return { ok: true, values };
}

/** Stored params (a Json column) as string values; anything else is dropped. */
export function storedParams(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}
