/**
 * Zoho CRM: Zoho Accounts OAuth 2.0 (comma-separated scopes; `access_type=offline` for a refresh
 * token). Zoho runs one accounts server per data centre (.com, .eu, .in, .com.au, .jp…); the token answer
 * names the account's `api_domain`. This declaration uses the US (.com) servers. The identity is Zoho
 * Accounts' user info (`ZUID`). Connect only: Zoho CRM notifications are channels each account's token
 * subscribes to (per-account).
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "zoho_crm",
  displayName: "Zoho CRM",
  category: "crm",
  description: "Read the leads, contacts, deals and users of a Zoho CRM organization.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#c8202f"/>' +
    '<path d="M7 17V11M12 17V7M17 17v-4" stroke="#fff" stroke-width="2.2" stroke-linecap="round"/></svg>',
  docs: [
    "https://www.zoho.com/crm/developer/docs/api/v8/oauth-overview.html",
    "https://www.zoho.com/accounts/protocol/oauth/web-apps/authorization.html",
    "https://www.zoho.com/crm/developer/docs/api/v8/multi-dc.html",
    "https://www.zoho.com/crm/developer/docs/api/v8/notifications/overview.html",
  ],
  oauth: {
    authorizeUrl: "https://accounts.zoho.com/oauth/v2/auth",
    tokenUrl: "https://accounts.zoho.com/oauth/v2/token",
    apiUrl: "https://accounts.zoho.com",
    scopes: ["ZohoCRM.modules.READ", "ZohoCRM.users.READ", "AaaServer.profile.READ"],
    scopeDescriptions: {
      "ZohoCRM.modules.READ": "Read your CRM records (leads, contacts, accounts, deals…)",
      "ZohoCRM.users.READ": "Read the users of your CRM organization",
      "AaaServer.profile.READ": "Read your Zoho profile (your user id, name and email)",
    },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_post",
    extraAuthorizeParams: { access_type: "offline", prompt: "consent" },
    refresh: true,
  },
  identity: {
    path: "/oauth/user/info",
    idPath: "ZUID",
    displayNamePath: "Display_Name",
    metadata: { email: "Email" },
  },
});
