/**
 * HubSpot: OAuth 2.0 for public apps (30-minute access tokens, refresh tokens). Webhooks are the
 * app's: the operator sets the app's target URL once (the deployment's inbound URL) and subscribes
 * to CRM events there; every account that installs the app is covered. A delivery is a JSON array of
 * events (each forwarded as one event, routed by `portalId`, the account's id), signed v3:
 * `X-HubSpot-Signature-v3` = base64 HMAC-SHA256 keyed with the app's client secret (set it as the
 * webhook secret) over `POST` + the URI HubSpot called (some escapes decoded) + body +
 * `X-HubSpot-Request-Timestamp` (milliseconds, refused past 5 minutes). `eventId` "is not guaranteed
 * to be unique", so an event is known by its eventId, subscription, portal, object and time together.
 */
import { declareConnector } from "../../declaration.ts";

/** One event of a delivery, as the webhooks guide's payload table lists its fields. */
const event = (object: string, action: string, objectId: number, extra: Record<string, unknown> = {}) => ({
  objectId,
  ...extra,
  changeSource: "CRM",
  eventId: 3816279340,
  subscriptionId: 25,
  portalId: 33,
  appId: 1160452,
  occurredAt: 1767261600000,
  subscriptionType: `${object}.${action}`,
  attemptNumber: 0,
});
const property: Record<string, Record<string, string>> = {
  contact: { propertyName: "lifecyclestage", propertyValue: "customer" },
  company: { propertyName: "industry", propertyValue: "COMPUTER_SOFTWARE" },
  deal: { propertyName: "dealstage", propertyValue: "closedwon" },
};
const objectIds: Record<string, number> = { contact: 1246965, company: 5832114, deal: 9018273 };
const trigger = (object: string, action: string, name: string, displayName: string, description: string) => ({
  name,
  displayName,
  description,
  providerEvent: `${object}.${action}`,
  samplePayload: event(object, action, objectIds[object], action === "propertyChange" ? property[object] : {}),
});

export default declareConnector({
  name: "hubspot",
  displayName: "HubSpot",
  category: "crm",
  description: "Read the contacts, companies and deals of a HubSpot account, and hear when they are created, changed or deleted.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#ff5c35"/>' +
    '<circle cx="14.5" cy="13.5" r="3.2" fill="none" stroke="#fff" stroke-width="1.8"/>' +
    '<path d="M14.5 10.3V6.5M12 15.8l-4.5 3M12.2 11.5 7 7.5" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.hubspot.com/docs/api/oauth-quickstart-guide",
    "https://developers.hubspot.com/docs/api/working-with-oauth",
    "https://developers.hubspot.com/docs/api/settings/account-information-api",
    "https://developers.hubspot.com/docs/api/webhooks",
    "https://developers.hubspot.com/docs/apps/developer-platform/build-apps/authentication/request-validation",
    "https://developers.hubspot.com/docs/apps/legacy-apps/public-apps/create-generic-webhook-subscriptions",
  ],
  oauth: {
    authorizeUrl: "https://app.hubspot.com/oauth/authorize",
    tokenUrl: "https://api.hubapi.com/oauth/v1/token",
    // Webhook subscriptions need the read scope of each object type they cover (the webhooks guide's "Scopes").
    scopes: ["oauth", "crm.objects.contacts.read", "crm.objects.companies.read", "crm.objects.deals.read"],
    scopeDescriptions: {
      oauth: "Connect this application to your HubSpot account",
      "crm.objects.contacts.read": "Read your contacts",
      "crm.objects.companies.read": "Read your companies",
      "crm.objects.deals.read": "Read your deals",
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
  api: { baseUrl: "https://api.hubapi.com" },
  webhook: {
    scheme: {
      type: "hmac",
      header: "x-hubspot-signature-v3",
      algorithm: "sha256",
      encoding: "base64",
      // Events are always POSTed; {url} is the public inbound URL, which is what the app's target URL must be.
      signedContent: "POST{url}{body}{timestamp}",
      timestampHeader: "x-hubspot-request-timestamp",
      timestampFormat: "unix_milliseconds",
      toleranceSeconds: 300,
      urlDecode: ["%3A", "%2F", "%3F", "%40", "%21", "%24", "%27", "%28", "%29", "%2A", "%2C", "%3B"],
    },
    batch: {},
    event: { path: "subscriptionType" },
    routing: ["portalId"],
    deliveryId: { paths: ["eventId", "subscriptionId", "portalId", "objectId", "occurredAt"] },
    occurredAt: ["occurredAt"],
  },
  triggers: [
    trigger("contact", "creation", "contact_created", "Contact created", "A contact was created in the account."),
    trigger("contact", "propertyChange", "contact_property_changed", "Contact property changed", "A subscribed property of a contact changed: `propertyName` and its new `propertyValue`."),
    trigger("contact", "deletion", "contact_deleted", "Contact deleted", "A contact was deleted."),
    trigger("company", "creation", "company_created", "Company created", "A company was created in the account."),
    trigger("company", "propertyChange", "company_property_changed", "Company property changed", "A subscribed property of a company changed: `propertyName` and its new `propertyValue`."),
    trigger("company", "deletion", "company_deleted", "Company deleted", "A company was deleted."),
    trigger("deal", "creation", "deal_created", "Deal created", "A deal was created in the account."),
    trigger("deal", "propertyChange", "deal_property_changed", "Deal property changed", "A subscribed property of a deal changed (a stage, an amount): `propertyName` and its new `propertyValue`."),
    trigger("deal", "deletion", "deal_deleted", "Deal deleted", "A deal was deleted."),
  ],
});
