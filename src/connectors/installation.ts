/**
 * The `installation` section of an APP_INSTALLATION connector (a GitHub App): the end user installs
 * the operator's app on an account instead of granting a token, and the service mints short-lived
 * installation tokens itself, authenticated as the app by an RS256 JWT signed with its private key.
 * The identity section is read with that JWT at `identity.path` (`{installation_id}` filled in).
 */
import * as z from "zod";
import { httpsUrl, jsonPath } from "./fields.ts";
import { apiRequestSchema, isBodilessGet } from "./request.ts";

const apiPath = z.string().startsWith("/", "must start with /");
const naming = (placeholder: string) => (path: string) => path.includes(`{${placeholder}}`);

export const installationSchema = z
  .object({
    /** Where the browser goes to install the app, `{slug}` the app's slug; `?state=` is added. Overridable with CONNECTOR_<NAME>_INSTALL_URL. */
    installUrl: z
      .string()
      .refine(naming("slug"), "must name {slug}")
      .refine((t) => httpsUrl.safeParse(t.replace("{slug}", "app")).success, "must be an https:// URL"),
    /** The one request shape (./request.ts): `{api.baseUrl}{path}` with the app's JWT mints an installation token; the path names `{installation_id}`. */
    accessToken: apiRequestSchema
      .extend({ path: apiPath.refine(naming("installation_id"), "must name {installation_id}") })
      .strict(),
    /** Members of that answer: the token, its expiry (ISO-8601) and the permissions granted (stored as the connection's scopes, `name:level`). */
    tokenPath: jsonPath.default("token"),
    expiresAtPath: jsonPath.default("expires_at"),
    permissionsPath: jsonPath.default("permissions"),
    /**
     * The one request shape, a GET: `{api.baseUrl}{path}` with the installing user's token (from the `code` the provider adds when
     * the app asks for user authorization during installation): the installations that user can
     * reach, an array at `listPath` whose items have `id`. The installation is accepted only if listed.
     */
    userInstallations: apiRequestSchema
      .extend({ listPath: jsonPath })
      .strict()
      .refine(isBodilessGet, { message: "a list is read with GET and no body", path: ["method"] }),
    /** Triggers whose events mean the installation is gone: the connection it is routed to becomes DISCONNECTED. */
    disconnectOn: z.array(z.string().min(1)).default([]),
    /** The JWT's lifetime in seconds; the provider's maximum (GitHub: 10 minutes), less a margin. */
    jwtLifetimeSeconds: z.number().int().min(60).max(600).default(540),
  })
  .strict();

export type InstallationDeclaration = z.output<typeof installationSchema>;
