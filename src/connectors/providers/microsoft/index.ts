/**
 * Microsoft 365 (Outlook mail and calendar, Teams) through the Microsoft identity platform v2.0 and
 * Microsoft Graph. Connect only: Graph change notifications are per-subscription (validationToken
 * handshake, clientState shared value), created by the operator with the account's token.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "microsoft",
  displayName: "Microsoft 365",
  category: "mail",
  description: "Outlook mail and calendars of a Microsoft work, school or personal account, through Microsoft Graph.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#2b2b2b"/>' +
    '<rect x="5" y="5" width="6.5" height="6.5" fill="#f25022"/><rect x="12.5" y="5" width="6.5" height="6.5" fill="#7fba00"/>' +
    '<rect x="5" y="12.5" width="6.5" height="6.5" fill="#00a4ef"/><rect x="12.5" y="12.5" width="6.5" height="6.5" fill="#ffb900"/></svg>',
  docs: [
    "https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-auth-code-flow",
    "https://learn.microsoft.com/en-us/graph/permissions-reference",
    "https://learn.microsoft.com/en-us/graph/api/user-get",
  ],
  oauth: {
    authorizeUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
    tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
    apiUrl: "https://graph.microsoft.com/v1.0",
    scopes: ["openid", "profile", "offline_access", "User.Read", "Mail.Read", "Calendars.Read"],
    scopeDescriptions: {
      openid: "Sign you in",
      profile: "Read your basic profile",
      offline_access: "Keep this access while you are away (until you revoke it)",
      "User.Read": "Read your profile (your id, name and email address)",
      "Mail.Read": "Read your mail",
      "Calendars.Read": "Read your calendars",
    },
    scopeSeparator: " ",
    pkce: true,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { response_mode: "query" },
    refresh: true,
  },
  identity: {
    path: "/me",
    idPath: "id",
    displayNamePath: "displayName",
    metadata: { userPrincipalName: "userPrincipalName", mail: "mail" },
  },
});
