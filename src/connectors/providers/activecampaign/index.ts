/**
 * ActiveCampaign API v3 at `https://{account}.api-us1.com/api/3`: the account's API key (Settings →
 * Developer) sent in the `Api-Token` header, checked with `GET /api/3/users/me` (the user's
 * `user.id`). The account name is the connection parameter `account`. ActiveCampaign's webhooks
 * (`POST /api/3/webhooks`) are sent unsigned as `application/x-www-form-urlencoded`, so contacts and
 * deals are read instead: `GET /api/3/contacts` and `GET /api/3/deals` sorted by creation date
 * (`orders[cdate]=DESC`), each item forwarded once per `id`.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "activecampaign",
  displayName: "ActiveCampaign",
  category: "marketing",
  description: "Contacts and deals added to an ActiveCampaign account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#004cff"/>' +
    '<path d="M8 6l9 6-9 6" fill="none" stroke="#fff" stroke-width="2.2" stroke-linejoin="round" stroke-linecap="round"/></svg>',
  docs: [
    "https://developers.activecampaign.com/reference/authentication",
    "https://developers.activecampaign.com/reference/url",
    "https://developers.activecampaign.com/reference/get-user-me",
    "https://developers.activecampaign.com/reference/list-all-contacts",
    "https://developers.activecampaign.com/reference/list-all-deals",
    "https://developers.activecampaign.com/page/webhooks",
  ],
  authMode: "API_KEY",
  params: [
    {
      name: "account",
      description: "the ActiveCampaign account name: acme for acme.api-us1.com (Settings → Developer → URL).",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "acme",
    },
  ],
  credentials: {
    fields: [
      {
        name: "api_key",
        label: "API key",
        help: "In ActiveCampaign open Settings → Developer; the key is under API Access.",
        secret: true,
        pattern: "^[A-Za-z0-9]{32,128}$",
        example: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef01234567",
      },
    ],
    whereToFind: "https://help.activecampaign.com/hc/en-us/articles/207317590-Getting-started-with-the-API",
    key: "api_key",
    test: { method: "GET", path: "/api/3/users/me", idPath: "user.id", displayNamePath: "user.username" },
  },
  api: { baseUrl: "https://{account}.api-us1.com", auth: { style: "header", header: "api-token" } },
  triggers: [
    {
      name: "contact_added",
      displayName: "Contact added",
      description: "A contact was added to the account.",
      providerEvent: "contact_add",
      samplePayload: {
        cdate: "2026-01-01T12:00:00-06:00",
        email: "johndoe@example.com",
        phone: "",
        firstName: "John",
        lastName: "Doe",
        orgid: "0",
        segmentio_id: "",
        bounced_hard: "0",
        bounced_soft: "0",
        ip: "0",
        hash: "6b4e0d10ac7a5e4fc5c1d0a3b3a2f1e0",
        deleted: "0",
        udate: "2026-01-01T12:00:00-06:00",
        links: { contactLists: "https://acme.api-us1.com/api/3/contacts/1/contactLists" },
        id: "1",
        organization: null,
      },
    },
    {
      name: "deal_added",
      displayName: "Deal added",
      description: "A deal was created in one of the account's pipelines.",
      providerEvent: "deal_add",
      samplePayload: {
        hash: "2a8f7e6d",
        owner: "1",
        contact: "1",
        organization: null,
        group: "1",
        stage: "1",
        title: "Annual plan for Acme",
        description: "",
        percent: "0",
        cdate: "2026-01-01T12:00:00-06:00",
        mdate: "2026-01-01T12:00:00-06:00",
        value: "120000",
        currency: "usd",
        status: "0",
        links: { contact: "https://acme.api-us1.com/api/3/deals/1/contact" },
        id: "1",
      },
    },
  ],
  polling: {
    triggers: {
      contact_added: {
        request: { path: "/api/3/contacts", query: { "orders[cdate]": "DESC", limit: "100" } },
        items: "contacts",
        id: "id",
        version: "cdate",
        occurredAt: ["cdate"],
        cursor: { from: "version" },
      },
      deal_added: {
        request: { path: "/api/3/deals", query: { "orders[cdate]": "DESC", limit: "100" } },
        items: "deals",
        id: "id",
        version: "cdate",
        occurredAt: ["cdate"],
        cursor: { from: "version" },
      },
    },
  },
});
