/**
 * The `credentials` section of an API_KEY or BASIC connector: the fields the end user types on the
 * hosted connect page (an API key, an account id and a token…), where the provider shows them, how
 * they become the one credential sent on every call, and the request that proves them before
 * anything is stored. Read by src/connect/credentials.ts (the check) and the connect form page.
 *
 * What is stored (sealed, in the access-token column) is exactly what follows the scheme on the
 * wire: the key itself for API_KEY, `base64(username:password)` for BASIC. The proxy sends it in
 * the connector's declared `api.auth` style; the token endpoint hands it out as it is.
 */
import * as z from "zod";
import { anchoredPattern, httpsUrl, jsonPath } from "./fields.ts";
import { apiRequestSchema } from "./request.ts";


/** `{name}` in a template: a field, or one of the connection's params. */
const PLACEHOLDER = /\{([a-z][a-z0-9_]*)\}/g;

const fieldSchema = z
  .object({
    /** snake_case; the form field's name, and `{name}` in the templates below. */
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, "must be snake_case"),
    /** The form label ("API key", "Account SID"). */
    label: z.string().min(1),
    /** One sentence under the field: where to find it, what it looks like. */
    help: z.string().min(1),
    /** A secret is a password input, never shown again and never stored outside the sealed credential. */
    secret: z.boolean(),
    /** Anchored regular expression a value must match before the provider is asked. */
    pattern: anchoredPattern.optional(),
    /** A made-up value of the right shape (matching `pattern`): the docs' and the generated tests'. */
    example: z.string().min(1),
  })
  .strict()
  .refine((f) => !f.pattern || new RegExp(f.pattern).test(f.example), { message: "example must match pattern", path: ["example"] });

export const credentialsSchema = z
  .object({
    fields: z.array(fieldSchema).min(1),
    /** The provider's page where the end user finds these values (linked from the form). */
    whereToFind: httpsUrl,
    /** API_KEY: the field that is the key. */
    key: z.string().optional(),
    /**
     * API_KEY, instead of `key`: the credential made of several fields, sent after the declared
     * auth prefix (Trello's `oauth_consumer_key="{api_key}", oauth_token="{token}"`).
     */
    keyTemplate: z.string().min(1).optional(),
    /** BASIC: the user name and password, as templates over the fields (Freshdesk: `{api_key}` and `X`). */
    basic: z.object({ username: z.string(), password: z.string() }).strict().optional(),
    /** The request that proves the credentials (the one request shape, ./request.ts), answered 2xx with the account; a 401/403 is "refused". */
    test: apiRequestSchema
      .extend({
        /** Under `api.baseUrl`; may name fields and params (`/2010-04-01/Accounts/{account_sid}.json`). */
        path: z.string().startsWith("/", "must start with /"),
        /** The account's id in the answer: the connection's externalId. */
        idPath: jsonPath,
        displayNamePath: jsonPath.optional(),
      })
      .strict(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const names = c.fields.map((f) => f.name);
    if (new Set(names).size !== names.length) ctx.addIssue({ code: "custom", path: ["fields"], message: "field names must be unique" });
    if (c.key !== undefined && !c.fields.some((f) => f.name === c.key)) ctx.addIssue({ code: "custom", path: ["key"], message: `"${c.key}" is not one of the fields` });
    if (c.key !== undefined && c.keyTemplate !== undefined) ctx.addIssue({ code: "custom", path: ["keyTemplate"], message: "declare key or keyTemplate, not both" });
    for (const [, name] of (c.keyTemplate ?? "").matchAll(PLACEHOLDER)) {
      if (!names.includes(name)) ctx.addIssue({ code: "custom", path: ["keyTemplate"], message: `{${name}} is not one of the fields` });
    }
    // A secret goes on the wire only through the credential: templates that are logged or put in URLs may name non-secret fields only.
    for (const name of secretFieldsNamed(c, c.test.path)) ctx.addIssue({ code: "custom", path: ["test", "path"], message: `must not name the secret field {${name}}` });
  });

/** The secret fields a template names (`api.baseUrl`, `test.path`): none may be, they are logged and put in URLs. */
export function secretFieldsNamed(c: { fields: { name: string; secret: boolean }[] }, template: string): string[] {
  const secret = new Set(c.fields.filter((f) => f.secret).map((f) => f.name));
  return [...template.matchAll(PLACEHOLDER)].map(([, name]) => name).filter((name) => secret.has(name));
}

/** A template over the fields and params that is an https URL once they are filled (`https://{domain}.freshdesk.com`). */
export const isHttpsUrlTemplate = (template: string): boolean => httpsUrl.safeParse(template.replace(PLACEHOLDER, "x")).success;

export type CredentialsDeclaration = z.output<typeof credentialsSchema>;
export type CredentialField = CredentialsDeclaration["fields"][number];

/** Fills `{name}` from `values`; a name without a value is left empty (validated fields always have one). */
export function fillCredentialTemplate(template: string, values: Record<string, string>, encode: (v: string) => string = (v) => v): string {
  return template.replace(PLACEHOLDER, (_, name: string) => encode(values[name] ?? ""));
}

/** An API key as sent on every call: the key field, or the declared key template filled. */
export function wireApiKey(decl: CredentialsDeclaration, values: Record<string, string>): string {
  return decl.keyTemplate ? fillCredentialTemplate(decl.keyTemplate, values) : (values[decl.key!] ?? "");
}

/** A Basic credential as sent on every call: `base64(username:password)` (RFC 7617). */
export function wireBasic(decl: CredentialsDeclaration, values: Record<string, string>): string {
  const { username, password } = decl.basic!;
  return Buffer.from(`${fillCredentialTemplate(username, values)}:${fillCredentialTemplate(password, values)}`, "utf8").toString("base64");
}

const WIRE = { API_KEY: wireApiKey, BASIC: wireBasic } as const;

/** The one credential sent on every call, for a connector of either keyed mode (the auth mode strategies call the two above). */
export function wireCredential(decl: CredentialsDeclaration, authMode: "API_KEY" | "BASIC", values: Record<string, string>): string {
  return WIRE[authMode](decl, values);
}

/** The non-secret fields: kept on the connection with its params (they may fill its API base). */
export function publicValues(decl: CredentialsDeclaration, values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(decl.fields.filter((f) => !f.secret).map((f) => [f.name, values[f.name] ?? ""]));
}
