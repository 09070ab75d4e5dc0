/**
 * HubSpot: OAuth 2.0 for public apps (30-minute access tokens, refresh tokens). Connect only:
 * HubSpot delivers webhooks as a JSON array batching several events (one delivery, many events) and
 * signs v3 with millisecond timestamps, neither of which the shared webhook pipeline handles yet.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "hubspot",
  displayName: "HubSpot",
  category: "crm",
  description: "Read the contacts in a HubSpot account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ff5c35"/>' +
    '<circle cx="14.5" cy="13.5" r="3.2" fill="none" stroke="#fff" stroke-width="1.8"/>' +
    '<path d="M14.5 10.3V6.5M12 15.8l-4.5 3M12.2 11.5 7 7.5" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.hubspot.com/docs/api/oauth-quickstart-guide",
    "https://developers.hubspot.com/docs/api/working-with-oauth",
    "https://developers.hubspot.com/docs/api/settings/account-information-api",
  ],
  oauth: {
    authorizeUrl: "https://app.hubspot.com/oauth/authorize",
    tokenUrl: "https://api.hubapi.com/oauth/v1/token",
    apiUrl: "https://api.hubapi.com",
    scopes: ["oauth", "crm.objects.contacts.read"],
    scopeDescriptions: {
      oauth: "Connect this application to your HubSpot account",
      "crm.objects.contacts.read": "Read your contacts",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: true,
  },
  // The portal (HubSpot account) id is what HubSpot's webhooks carry as portalId.
  identity: {
    path: "/account-info/v3/details",
    idPath: "portalId",
    displayNamePath: "uiDomain",
    metadata: { accountType: "accountType", timeZone: "timeZone" },
  },
});
