import type { Config } from "../config.ts";

/**
 * The REST contract as OpenAPI 3.1: what /openapi.json serves and /docs/api renders. The REST tests
 * validate every real response they receive against it (test/helpers/openapi.ts), and a linter
 * checks it (test/openapi/document.test.ts), so this file cannot drift from the routes.
 */

const problem = (description: string, extraHeaders: Record<string, unknown> = {}) => ({
  description,
  headers: extraHeaders,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});

const html = (description: string) => ({ description, content: { "text/html": { schema: { type: "string" } } } });

/** Marks the proxy's answers that are Switchyard's own, not the provider's. */
const switchyardError = { "x-switchyard-error": { description: "`true`: this error is Switchyard's, not the provider's.", schema: { const: "true" } } };

const retryAfter = { "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "string", pattern: "^\\d+$" } } };

const pageHeaders = {
  "X-Total-Count": { required: true, schema: { type: "string", pattern: "^\\d+$" } },
  "X-Offset": { required: true, schema: { type: "string", pattern: "^\\d+$" } },
  "X-Limit": { required: true, schema: { type: "string", pattern: "^\\d+$" } },
  Link: { required: true, description: "RFC 8288 links `first`, `prev`, `next`, `last`.", schema: { type: "string" } },
};

const connectionParameters = [
  { name: "connector", in: "path", required: true, schema: { type: "string" }, example: "github" },
  { name: "account", in: "path", required: true, description: "The auth-url `account` (percent-encoded).", schema: { type: "string" }, example: "alice" },
];

const nullableTime = { type: ["string", "null"], format: "date-time" };

export function openApiDocument(config: Pick<Config, "publicUrl">, version: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "Switchyard REST API",
      version,
      summary: "Connector authorization URLs, paginated data, inbound provider webhooks and health.",
      description:
        "Everything else (configuration, events, deliveries, live streams) is GraphQL at `/graphql`. Errors are " +
        "`application/problem+json` with a stable snake_case `code`. See docs/reference/rest.md in the repository.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: config.publicUrl }],
    tags: [
      { name: "Connect", description: "Authorization URLs and the hosted connect pages." },
      { name: "Data", description: "Paginated listing." },
      { name: "Connections", description: "The end users' connections: list, read, delete." },
      { name: "Webhooks", description: "Where third-party providers send their events." },
      { name: "Operations", description: "Health, readiness, metrics and this document." },
      { name: "Connections", description: "Using a connection: its token, and provider API calls through the proxy." },
    ],
    paths: {
      "/api/v1/connector/service/{connector_name}/auth-url": {
        get: {
          tags: ["Connect"],
          operationId: "getAuthUrl",
          summary: "An authorization URL for one end-user account",
          description: "Single-use once the flow completes; expires after CONNECT_URL_TTL_SECONDS (30 minutes by default).",
          security: [{ apiKey: [] }],
          parameters: [
            { name: "connector_name", in: "path", required: true, schema: { type: "string" }, example: "github" },
            {
              name: "account",
              in: "query",
              required: true,
              description: "The end user's id in your system: 1–255 characters, no control characters.",
              schema: { type: "string", minLength: 1, maxLength: 255 },
              example: "alice",
            },
            {
              name: "redirectUrl",
              in: "query",
              required: false,
              description:
                "Where the browser goes when the flow ends: 303 with `status=connected&connector&account&connectionId`, or `status=error&connector&account&error` " +
                "(`access_denied`, `expired`, `provider_error`, `identity_error`, `state_mismatch`). Its origin must be in the deployment's allowedRedirectOrigins " +
                "(Connect settings); https, or http on localhost; no user@; at most 2,048 characters.",
              schema: { type: "string", format: "uri", maxLength: 2048 },
              example: "https://app.example.com/integrations/done",
            },
            {
              name: "params",
              in: "query",
              required: false,
              style: "deepObject",
              explode: true,
              description:
                "Connection parameters the connector declares, as `params[<name>]=<value>` (Zendesk `params[subdomain]=acme`, Shopify `params[shop]=acme-store`); " +
                "each a single hostname label matching the declared pattern. Required when declared; unknown ones are refused.",
              schema: { type: "object", additionalProperties: { type: "string", pattern: "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$" } },
              example: { subdomain: "acme" },
            },
          ],
          responses: {
            "200": {
              description: "The URL to send the end user to.",
              headers: { "Cache-Control": { schema: { const: "no-store" } } },
              content: { "application/json": { schema: { $ref: "#/components/schemas/AuthUrl" } } },
            },
            "400": problem(
              "`invalid_parameter`: account missing, empty, too long or with control characters; a redirectUrl refused (its origin not in allowedRedirectOrigins, a scheme other than https, user@); a connection parameter missing, unknown or invalid.",
            ),
            "401": problem("`missing_api_key` or `invalid_api_key` (revoked and expired keys are invalid)."),
            "404": problem("`unknown_connector`."),
            "409": problem("`connector_not_configured`: no OAuth client for this connector, neither the deployment's nor the service's."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
      },
      "/api/data": {
        get: {
          tags: ["Data"],
          operationId: "listData",
          summary: "The deployment's data items, a page at a time",
          security: [{ apiKey: [] }],
          parameters: [
            { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 10 } },
            { name: "envelope", in: "query", description: "`true`: the page in `data` beside `pagination`.", schema: { type: "string", enum: ["true", "false"] } },
          ],
          responses: {
            "200": {
              description: "Items ordered by id. Past the end: `[]`.",
              headers: pageHeaders,
              content: {
                "application/json": {
                  schema: { oneOf: [{ type: "array", items: { $ref: "#/components/schemas/DataItem" } }, { $ref: "#/components/schemas/DataEnvelope" }] },
                },
              },
            },
            "400": problem("`invalid_parameter`: offset, limit or envelope out of range."),
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
      },
      "/api/v1/connections": {
        get: {
          tags: ["Connections"],
          operationId: "listConnections",
          summary: "The deployment's connections, newest first, a page at a time",
          description: "Paged exactly as `/api/data`; the links keep the filters.",
          security: [{ apiKey: [] }],
          parameters: [
            { name: "connector", in: "query", description: "Only this connector's.", schema: { type: "string" }, example: "github" },
            { name: "status", in: "query", schema: { type: "string", enum: ["ACTIVE", "REAUTH_REQUIRED", "DISCONNECTED"] } },
            {
              name: "search",
              in: "query",
              description: "A case-insensitive substring of account, externalId or displayName.",
              schema: { type: "string", maxLength: 255 },
            },
            { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 10 } },
            { name: "envelope", in: "query", description: "`true`: the page in `data` beside `pagination`.", schema: { type: "string", enum: ["true", "false"] } },
          ],
          responses: {
            "200": {
              description: "Connections, newest first. Past the end: `[]`.",
              headers: pageHeaders,
              content: {
                "application/json": {
                  schema: {
                    oneOf: [
                      { type: "array", items: { $ref: "#/components/schemas/Connection" } },
                      {
                        type: "object",
                        required: ["data", "pagination"],
                        properties: { data: { type: "array", items: { $ref: "#/components/schemas/Connection" } }, pagination: { $ref: "#/components/schemas/Pagination" } },
                        additionalProperties: false,
                      },
                    ],
                  },
                },
              },
            },
            "400": problem("`invalid_parameter`: offset, limit, envelope, connector (no such connector), status or search not usable."),
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
      },
      "/api/v1/connections/{connector}/{account}": {
        get: {
          tags: ["Connections"],
          operationId: "getConnection",
          summary: "One connection",
          security: [{ apiKey: [] }],
          parameters: connectionParameters,
          responses: {
            "200": { description: "The Connection (never a token).", content: { "application/json": { schema: { $ref: "#/components/schemas/Connection" } } } },
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "404": problem("`connection_not_found` (also for another deployment's connection)."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
        delete: {
          tags: ["Connections"],
          operationId: "deleteConnection",
          summary: "Disconnect: tokens forgotten, the grant revoked at the provider where it says how",
          description:
            "Status DISCONNECTED; the tokens are forgotten; the connection's provider subscriptions are deleted first; the grant is revoked at " +
            "the provider where the connector declares how (GraphQL `Connector.revokesGrantOnDelete`), best effort; `switchyard.connection_deleted` is emitted. Repeating it is 204 and does nothing more.",
          security: [{ apiKey: [] }],
          parameters: connectionParameters,
          responses: {
            "204": { description: "Disconnected (now or before)." },
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "404": problem("`connection_not_found`: never connected (or another deployment's)."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
      },
      "/webhooks/{deploymentId}/{connector}": {
        post: {
          tags: ["Webhooks"],
          operationId: "receiveWebhook",
          summary: "An event from a provider, verified with its own scheme",
          description:
            "GitHub `X-Hub-Signature-256`, Slack `X-Slack-Signature` (5-minute window), Jira and Linear shared secrets, " +
            "Gmail Pub/Sub push with its bearer token. Provider retries are deduplicated. Body limit 1 MiB.",
          parameters: [
            { name: "deploymentId", in: "path", required: true, schema: { type: "string" } },
            { name: "connector", in: "path", required: true, schema: { type: "string" } },
          ],
          requestBody: { required: true, content: { "*/*": { schema: {} } } },
          responses: {
            "200": {
              description: "Accepted: what was done with the events it carried (or a provider's handshake answer, e.g. Slack's url_verification).",
              content: { "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/InboundOutcome" }, { type: "object" }] } }, "text/plain": { schema: { type: "string" } } },
            },
            "400": problem("`invalid_parameter`: the body is not what the provider sends."),
            "401": problem("`invalid_signature`: nothing was stored."),
            "404": problem("`unknown_connector` or `not_found` (no such deployment)."),
            "413": problem("`payload_too_large`: over 1 MiB."),
            "503": problem("`upstream_unavailable`: the provider could not be read; deliver again later.", retryAfter),
          },
        },
      },
      "/connect/{token}": {
        get: {
          tags: ["Connect"],
          operationId: "connectPage",
          summary: "The connect page behind an authorization URL (HTML, for the end user's browser)",
          parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": html("The connector, the account and a Continue button."),
            "4XX": html("Expired, used or unknown link: an error page."),
            "503": html("The connector has no OAuth client yet (neither the deployment's nor the service's): an error page saying so."),
          },
        },
        post: {
          tags: ["Connect"],
          operationId: "connectContinue",
          summary: "Continue: to the consent page or the provider's authorize URL",
          parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
          responses: { "303": { description: "A redirect to the next step." }, "4XX": html("An error page.") },
        },
      },
      "/connect/{token}/consent": {
        get: {
          tags: ["Connect"],
          operationId: "consentPage",
          summary: "The consent page (service default credentials only)",
          parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": html("What is accessed, on whose behalf; Continue or Cancel."), "4XX": html("An error page.") },
        },
        post: {
          tags: ["Connect"],
          operationId: "consentDecision",
          summary: "Continue to the provider, or cancel",
          parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
          responses: { "303": { description: "To the provider's authorize URL." }, "200": html("Cancelled: nothing stored."), "4XX": html("An error page.") },
        },
      },
      "/oauth/callback": {
        get: {
          tags: ["Connect"],
          operationId: "oauthCallback",
          summary: "Where the provider returns the end user (HTML)",
          parameters: [
            { name: "code", in: "query", schema: { type: "string" } },
            { name: "state", in: "query", schema: { type: "string" } },
            { name: "error", in: "query", schema: { type: "string" } },
          ],
          responses: { "200": html("Done: the account is connected."), "4XX": html("Expired, reused, tampered or refused flows: an error page; nothing stored.") },
        },
      },
      "/healthz": {
        get: {
          tags: ["Operations"],
          operationId: "health",
          summary: "The process is up",
          responses: { "200": { description: "Up.", content: { "application/json": { schema: { type: "object", required: ["status"], properties: { status: { const: "ok" } } } } } } },
        },
      },
      "/readyz": {
        get: {
          tags: ["Operations"],
          operationId: "ready",
          summary: "The database is reachable",
          responses: {
            "200": {
              description: "Ready.",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["status", "database"],
                    properties: {
                      status: { const: "ready" },
                      database: { enum: ["pglite", "postgresql"] },
                      redis: { enum: ["ok", "degraded", "off"], description: "Reported, never decides: without Redis the service runs degraded." },
                      freeDiskMb: { type: "integer", description: "The embedded database's disk." },
                      databaseDisk: { const: "full", description: "For 60 s after the database server refused a write for a full disk: writes are answered 503 `disk_space_low`, reads go on." },
                    },
                  },
                },
              },
            },
            "503": problem("`database_unavailable`, `disk_space_low` (the embedded database's disk) or `shutting_down`."),
          },
        },
      },
      "/metrics": {
        get: {
          tags: ["Operations"],
          operationId: "metrics",
          summary: "Prometheus metrics",
          responses: { "200": { description: "Prometheus text format.", content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
      "/openapi.json": {
        get: {
          tags: ["Operations"],
          operationId: "openApiDocument",
          summary: "This document",
          responses: { "200": { description: "OpenAPI 3.1.", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
      "/api/v1/connections/{connector}/{account}/resources": {
        get: {
          tags: ["Connections"],
          operationId: "getResources",
          summary: "The resources the connection watches, oldest first",
          security: [{ apiKey: [] }],
          parameters: connectionParameters,
          responses: {
            "200": { description: "Its resources, each with its provider subscription.", content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Resource" } } } } },
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "404": problem("`connection_not_found` (also for another deployment's connection)."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
        post: {
          tags: ["Connections"],
          operationId: "postResource",
          summary: "Watch a resource (a project, a board, a calendar) with the connection",
          description:
            "One provider subscription per resource, made within seconds when one of its triggers is listed. The same params again answer the " +
            "existing resource with 200. Param values are strings (a JSON number is taken as its decimal string), checked by the connector's declared patterns.",
          security: [{ apiKey: [] }],
          parameters: connectionParameters,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", required: ["params"], properties: { params: { type: "object", additionalProperties: { type: ["string", "number"] }, examples: [{ project_id: "278964" }] } } },
              },
            },
          },
          responses: {
            "200": { description: "It was watched already: the existing resource.", content: { "application/json": { schema: { $ref: "#/components/schemas/Resource" } } } },
            "201": { description: "Watched.", content: { "application/json": { schema: { $ref: "#/components/schemas/Resource" } } } },
            "400": problem("`invalid_parameter`, naming the parameter; also for a connector without resource parameters."),
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "404": problem("`connection_not_found` (also for another deployment's connection)."),
            "409": problem("`limit_exceeded` (MAX_RESOURCES_PER_CONNECTION) or `connection_disconnected`."),
            "413": problem("`payload_too_large`."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
      },
      "/api/v1/connections/{connector}/{account}/resources/{id}": {
        delete: {
          tags: ["Connections"],
          operationId: "deleteResource",
          summary: "Stop watching a resource",
          description: "204 at once; its provider subscription is deleted at the provider within seconds (retried on failure). Again: 404 `resource_not_found`.",
          security: [{ apiKey: [] }],
          parameters: [...connectionParameters, { name: "id", in: "path", required: true, description: "The resource's id (`res_…`).", schema: { type: "string" } }],
          responses: {
            "204": { description: "No longer watched." },
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "404": problem("`connection_not_found` or `resource_not_found`."),
            "429": problem("`rate_limited`.", retryAfter),
          },
        },
      },
      "/api/v1/connections/{connector}/{account}/token": {
        get: {
          tags: ["Connections"],
          operationId: "getConnectionToken",
          summary: "The connection's current access token",
          description:
            "Refreshed first when it expires within five minutes, or always with `refresh=true` (when the account has a refresh token). " +
            "Concurrent callers share one refresh. Each read is logged with the key's prefix and the connection, never the token.",
          security: [{ apiKey: [] }],
          parameters: [
            ...connectionParameters,
            { name: "refresh", in: "query", description: "`true`: refresh now.", schema: { type: "string", enum: ["true", "false"] } },
          ],
          responses: {
            "200": {
              description: "The token. Never cache it beyond `expiresAt`.",
              headers: { "Cache-Control": { schema: { const: "no-store" } } },
              content: { "application/json": { schema: { $ref: "#/components/schemas/ConnectionToken" } } },
            },
            "400": problem("`invalid_parameter`: refresh is neither true nor false."),
            "401": problem("`missing_api_key` or `invalid_api_key`."),
            "404": problem("`connection_not_found` (also another deployment's connection) or `unknown_connector`."),
            "409": problem("`reauth_required` (send the user a new auth-url) or `connection_disconnected`."),
            "429": problem("`rate_limited`.", retryAfter),
            "502": problem("`provider_unreachable`: the token was due for a refresh and the provider's token endpoint did not answer."),
          },
        },
      },
      "/api/v1/proxy/{connector}/{account}/{path}": Object.fromEntries(
        ["get", "head", "post", "put", "patch", "delete", "options"].map((method) => [
          method,
          {
            tags: ["Connections"],
            operationId: `proxy${method[0].toUpperCase()}${method.slice(1)}`,
            summary: "A provider API call made with the connection's token",
            description:
              "Sent to the connector's API base + `/{path}` (any number of segments) + the query string, with the token in the connector's " +
              "declared style; the caller's headers go along minus hop-by-hop ones, `host`, `x-api-key`, `authorization`, `cookie`, " +
              "`x-forwarded-*` and `x-switchyard-*`. The provider's status, headers (minus hop-by-hop and `set-cookie`) and body come back " +
              "unchanged and streamed. A provider redirect is returned, never followed. Switchyard's own errors carry `x-switchyard-error: true`.",
            security: [{ apiKey: [] }],
            parameters: [
              ...connectionParameters,
              { name: "path", in: "path", required: true, description: "The provider API path, slashes included; `..`, schemes and `//host` are refused.", schema: { type: "string" } },
              {
                name: "x-switchyard-retries",
                in: "header",
                description: "0–5: retry 429, 502, 503, 504 and connection errors, waiting Retry-After (at most 30 s) or a backoff.",
                schema: { type: "integer", minimum: 0, maximum: 5, default: 0 },
              },
            ],
            ...(["post", "put", "patch", "delete"].includes(method) ? { requestBody: { required: false, content: { "*/*": { schema: {} } } } } : {}),
            responses: {
              default: {
                description: "The provider's answer, with `x-switchyard-attempts`.",
                headers: { "x-switchyard-attempts": { required: true, schema: { type: "string", pattern: "^[1-9][0-9]*$" } } },
                content: { "*/*": { schema: {} } },
              },
              "400": problem("`invalid_parameter`: the path leaves the API base, or x-switchyard-retries is not 0–5.", switchyardError),
              "401": problem("`missing_api_key` or `invalid_api_key`.", switchyardError),
              "404": problem("`connection_not_found` or `unknown_connector` — or the provider's own 404.", switchyardError),
              "409": problem("`reauth_required` or `connection_disconnected`.", switchyardError),
              "413": problem("`payload_too_large`: the body is over PROXY_MAX_BODY (10 MiB by default).", switchyardError),
              "429": problem("`rate_limited` (this API key) — or the provider's own 429.", { ...switchyardError, ...retryAfter }),
              "502": problem("`provider_unreachable`.", switchyardError),
              "504": problem("`provider_timeout`: no answer within PROXY_TIMEOUT (30 s by default).", switchyardError),
            },
          },
        ]),
      ),
    },
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "The deployment's API key, `sy_<word>_…`." } },
      schemas: {
        Problem: {
          type: "object",
          description: "RFC 9457 problem details with a stable `code`.",
          required: ["type", "title", "status", "detail", "code"],
          properties: {
            type: { type: "string", format: "uri" },
            title: { type: "string" },
            status: { type: "integer", minimum: 400, maximum: 599 },
            detail: { type: "string" },
            code: { type: "string", pattern: "^[a-z][a-z0-9_]*$" },
          },
          additionalProperties: false,
        },
        AuthUrl: {
          type: "object",
          required: ["authUrl", "connector", "account", "expiresAt"],
          properties: {
            authUrl: { type: "string", format: "uri" },
            connector: { type: "string" },
            account: { type: "string" },
            expiresAt: { type: "string", format: "date-time" },
          },
          additionalProperties: false,
        },
        DataItem: {
          type: "object",
          required: ["id", "name", "description"],
          properties: { id: { type: "integer" }, name: { type: "string" }, description: { type: "string" } },
          additionalProperties: false,
        },
        DataEnvelope: {
          type: "object",
          required: ["data", "pagination"],
          properties: {
            data: { type: "array", items: { $ref: "#/components/schemas/DataItem" } },
            pagination: { $ref: "#/components/schemas/Pagination" },
          },
          additionalProperties: false,
        },
        Pagination: {
          type: "object",
          required: ["total", "offset", "limit"],
          properties: { total: { type: "integer", minimum: 0 }, offset: { type: "integer", minimum: 0 }, limit: { type: "integer", minimum: 1, maximum: 100 } },
          additionalProperties: false,
        },
        Connection: {
          type: "object",
          description: "A connected account as the operator's server sees it. It never carries a token.",
          required: ["id", "connector", "account", "externalId", "displayName", "status", "scopes", "params", "metadata", "createdAt", "lastRefreshedAt", "lastEventAt", "subscriptions", "resources", "watching", "polling"],
          properties: {
            id: { type: "string" },
            connector: { type: "string" },
            account: { type: "string" },
            externalId: { type: "string", description: "The provider's id for the user." },
            displayName: { type: ["string", "null"], description: "What the provider calls the account (a login, an e-mail address)." },
            status: { enum: ["ACTIVE", "REAUTH_REQUIRED", "DISCONNECTED"] },
            scopes: { type: "array", items: { type: "string" } },
            params: { type: "object", additionalProperties: { type: "string" } },
            metadata: { type: "object" },
            createdAt: { type: "string", format: "date-time" },
            lastRefreshedAt: nullableTime,
            lastEventAt: { ...nullableTime, description: "When the newest event of this connection was recorded." },
            subscriptions: { type: "array", items: { $ref: "#/components/schemas/ProviderSubscription" } },
            resources: { type: "array", items: { $ref: "#/components/schemas/Resource" }, description: "What it watches, oldest first (empty for connectors without resource parameters)." },
            watching: {
              enum: ["RESOURCES", "NONE", "ACCOUNT"],
              description: "RESOURCES: at least one resource. NONE: its subscriptions need a resource and it names none (nothing subscribed). ACCOUNT: account-wide, app-level, polling, or optional resources none named.",
            },
            polling: {
              oneOf: [{ $ref: "#/components/schemas/PollingHealth" }, { type: "null" }],
              description: "How the connection's polls have gone lately; null when nothing of it is polled (no polled trigger of its connector is listed).",
            },
          },
          additionalProperties: false,
        },
        Resource: {
          type: "object",
          description: "A resource the connection watches, with its own provider subscription (null before it is planned or when no listed trigger needs it).",
          required: ["id", "params", "subscription", "createdAt"],
          properties: {
            id: { type: "string", description: "`res_…`" },
            params: { type: "object", additionalProperties: { type: "string" } },
            subscription: { oneOf: [{ $ref: "#/components/schemas/ProviderSubscription" }, { type: "null" }] },
            createdAt: { type: "string", format: "date-time" },
          },
          additionalProperties: false,
        },
        PollingHealth: {
          type: "object",
          description:
            "A polled connection's health. switchyard.polling_failed is emitted once when every poll has failed for POLLING_FAILED_AFTER (default 24h); a successful poll ends the run.",
          required: ["lastPolledAt", "lastSucceededAt", "lastError", "consecutiveFailures"],
          properties: {
            lastPolledAt: { ...nullableTime, description: "The last poll attempt." },
            lastSucceededAt: { ...nullableTime, description: "The last poll that succeeded." },
            lastError: { type: ["string", "null"], description: "Why the last poll failed (a message); null once one succeeds." },
            consecutiveFailures: { type: "integer", minimum: 0, description: "Polls failed in a row (0 after a success)." },
          },
          additionalProperties: false,
        },
        ProviderSubscription: {
          type: "object",
          description: "A subscription Switchyard holds at the provider for this connection.",
          required: ["id", "resource", "events", "status", "providerId", "expiresAt", "lastRenewedAt", "lastError", "nextAttemptAt"],
          properties: {
            id: { type: "string" },
            resource: { type: "string" },
            events: { type: "array", items: { type: "string" } },
            status: { enum: ["PENDING", "ACTIVE", "FAILED", "DELETED"] },
            providerId: { type: ["string", "null"] },
            expiresAt: nullableTime,
            lastRenewedAt: nullableTime,
            lastError: { type: ["string", "null"] },
            nextAttemptAt: nullableTime,
          },
          additionalProperties: false,
        },
        ConnectionToken: {
          type: "object",
          required: ["accessToken", "tokenType", "expiresAt", "scopes"],
          properties: {
            accessToken: { type: "string" },
            tokenType: { enum: ["Bearer", "ApiKey", "Basic"], description: "Bearer: an OAuth access token. ApiKey: an API key, sent as the connector declares. Basic: base64(user:password), sent after `Authorization: Basic`." },
            expiresAt: { type: ["string", "null"], format: "date-time" },
            scopes: { type: "array", items: { type: "string" } },
          },
          additionalProperties: false,
        },
        InboundOutcome: {
          type: "object",
          required: ["received", "recorded", "duplicates", "forwarded", "unrouted"],
          properties: {
            received: { type: "integer", minimum: 0 },
            recorded: { type: "integer", minimum: 0 },
            duplicates: { type: "integer", minimum: 0 },
            forwarded: { type: "integer", minimum: 0 },
            unrouted: { type: "integer", minimum: 0 },
          },
          additionalProperties: false,
        },
      },
    },
  };
}
