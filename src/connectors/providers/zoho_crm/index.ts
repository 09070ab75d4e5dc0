/**
 * Zoho CRM: Zoho Accounts OAuth 2.0 (comma-separated scopes; `access_type=offline` for a refresh
 * token). Zoho runs one accounts server per data centre (.com, .eu, .in, .com.au, .jp…); the token answer
 * names the account's `api_domain`. This declaration uses the US (.com) servers. The identity is Zoho
 * Accounts' user info (`ZUID`).
 * Polled: leads are read from the Leads module, most recently modified first, on the US API host
 * (Zoho CRM's notification channels expire within a day and are re-created per account).
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
    "https://www.zoho.com/crm/developer/docs/api/v8/get-records.html",
    "https://www.zoho.com/crm/developer/docs/api/v8/revoke-tokens.html",
  ],
  oauth: {
    authorizeUrl: "https://accounts.zoho.com/oauth/v2/auth",
    tokenUrl: "https://accounts.zoho.com/oauth/v2/token",
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
    // zoho.com/crm/developer/docs/api/v8/revoke-tokens.html: POST {Accounts_URL}/oauth/v2/token/revoke
    // with the refresh token as the query parameter `token`; the access tokens made from it go too.
    revocation: { url: "https://accounts.zoho.com/oauth/v2/token/revoke", method: "POST", tokenParam: "token", body: "query", clientAuth: "none", token: "refresh" },
  },
  identity: {
    path: "/oauth/user/info",
    idPath: "ZUID",
    displayNamePath: "Display_Name",
    metadata: { email: "Email" },
  },
  // The CRM API is on the data centre's API host (US here), with Zoho's own token prefix.
  api: { baseUrl: "https://accounts.zoho.com", connectionBaseUrl: "https://www.zohoapis.com", auth: { style: "header", header: "authorization", prefix: "Zoho-oauthtoken " } },
  triggers: [
    {
      name: "lead_updated",
      displayName: "Lead created or updated",
      description: "A lead was created or changed in the CRM (read from the Leads module on a schedule).",
      providerEvent: "GET /crm/v8/Leads",
      // One lead as the records list answers it, with the fields asked for.
      samplePayload: {
        id: "4876876000000333001",
        First_Name: "Patricia",
        Last_Name: "Boyle",
        Email: "patricia.b@zylker.com",
        Company: "Zylker",
        Lead_Status: "Contacted",
        Created_Time: "2026-01-01T14:30:00+05:30",
        Modified_Time: "2026-01-01T15:30:00+05:30",
      },
    },
  ],
  polling: {
    triggers: {
      // Most recently modified first; `fields` is required by the records API.
      lead_updated: {
        request: {
          path: "/crm/v8/Leads",
          query: { fields: "First_Name,Last_Name,Email,Company,Lead_Status,Created_Time,Modified_Time", sort_by: "Modified_Time", sort_order: "desc", per_page: "200" },
        },
        items: "data",
        id: "id",
        version: "Modified_Time",
        occurredAt: ["Modified_Time"],
        cursor: { from: "version" },
      },
    },
  },
});
