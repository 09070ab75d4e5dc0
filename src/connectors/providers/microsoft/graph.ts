/**
 * What every Microsoft Graph connector shares (Outlook here, Teams, OneDrive and SharePoint beside
 * it): the Microsoft identity platform v2.0 sign-in, the `/me` identity, and the Graph subscription
 * calls — POST /subscriptions with our own clientState and the same URL for lifecycle notifications
 * (Graph first checks it with its validationToken request), PATCH to renew, DELETE — with
 * notifications batched in `value[]`, lifecycle notifications among them (`lifecycleEvent`).
 * Sources: https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow,
 * https://learn.microsoft.com/en-us/graph/api/subscription-post-subscriptions,
 * https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks,
 * https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events.
 */
import type { ConnectorDeclarationInput } from "../../declaration.ts";

type SubscriptionInput = NonNullable<ConnectorDeclarationInput["subscription"]>;

const BASE_SCOPES = {
  openid: "Sign you in",
  profile: "Read your basic profile",
  offline_access: "Keep this access while you are away (until you revoke it)",
  "User.Read": "Read your profile (your id, name and email address)",
};

/** The Graph version every call names under the base `https://graph.microsoft.com`. */
export const GRAPH_VERSION = "/v1.0";

/** The sign-in of a Graph connector asking for `scopes` (each described in words) beyond sign-in and profile. */
export function graphOAuth(scopes: Record<string, string>): NonNullable<ConnectorDeclarationInput["oauth"]> {
  const described = { ...BASE_SCOPES, ...scopes };
  return {
    authorizeUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
    tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
    scopes: Object.keys(described),
    scopeDescriptions: described,
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { response_mode: "query" },
    refresh: true,
    // No revocation: the Microsoft identity platform has no endpoint that revokes one app's grant
    // with its tokens (revokeSignInSessions signs the user out of every app and needs
    // User.RevokeSessions.All); the tokens are only forgotten and lapse at the provider.
  };
}

/**
 * The base Microsoft's Graph SDKs are configured with: they add the version (`/v1.0/me`)
 * themselves, so every path here names it too (https://learn.microsoft.com/en-us/graph/sdks/customize-client).
 */
export const graphApi: NonNullable<ConnectorDeclarationInput["api"]> = { baseUrl: "https://graph.microsoft.com" };

export const graphIdentity: NonNullable<ConnectorDeclarationInput["identity"]> = {
  path: `${GRAPH_VERSION}/me`,
  idPath: "id",
  displayNamePath: "displayName",
  metadata: { userPrincipalName: "userPrincipalName", mail: "mail" },
};

/**
 * A Graph subscription per watched resource. `resource` in the create body is the declared one
 * unless given (a template over the connection's params, such as a SharePoint site's drive).
 */
export function graphSubscription(opts: {
  resources: SubscriptionInput["resources"];
  lifetimeSeconds: number;
  resource?: string;
}): SubscriptionInput {
  return {
    resources: opts.resources,
    create: {
      method: "POST",
      path: `${GRAPH_VERSION}/subscriptions`,
      // Lifecycle notifications come to the same URL (Graph allows it, and validates it with the
      // same validationToken request): told apart by their `lifecycleEvent`.
      body: {
        changeType: "{events}",
        notificationUrl: "{notificationUrl}",
        lifecycleNotificationUrl: "{notificationUrl}",
        resource: opts.resource ?? "{resource}",
        expirationDateTime: "{expiresAt}",
        clientState: "{secret}",
      },
    },
    renew: { method: "PATCH", path: `${GRAPH_VERSION}/subscriptions/{providerId}`, body: { expirationDateTime: "{expiresAt}" } },
    delete: { method: "DELETE", path: `${GRAPH_VERSION}/subscriptions/{providerId}` },
    answer: { idPath: "id", expiresPath: "expirationDateTime", expiresFormat: "iso" },
    lifetimeSeconds: opts.lifetimeSeconds,
    secret: "generated",
    notification: {
      itemsPath: "value",
      providerId: { path: "subscriptionId" },
      secret: { path: "clientState" },
      // https://learn.microsoft.com/en-us/graph/change-notifications-lifecycle-events: renew (a PATCH
      // with a new expiry also reauthorizes), re-create, or resync what was missed (a delta reader
      // reads on from its cursor: a drive's delta, Outlook's inbox messages delta).
      lifecycle: {
        eventPath: "lifecycleEvent",
        events: { reauthorizationRequired: "renew", subscriptionRemoved: "recreate", missed: "read" },
      },
    },
  };
}
