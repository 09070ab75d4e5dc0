/**
 * Mailchimp Marketing: OAuth 2.0 authorization code, no scopes; access tokens do not expire (no
 * refresh token). The account's data centre (`dc`) and API endpoint come from the metadata endpoint,
 * which is also the identity (`user_id`).
 * Mailchimp's webhooks are per audience and not signed, so new campaigns are polled from the
 * campaign list on the account's data centre, newest first.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "mailchimp",
  displayName: "Mailchimp",
  category: "marketing",
  description: "Read the audiences, campaigns and reports of a Mailchimp account.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#241c15"/>' +
    '<path d="M5 8h14v9H5z" fill="none" stroke="#fff" stroke-width="1.8"/><path d="M5 8l7 5 7-5" fill="none" stroke="#fff" stroke-width="1.8" stroke-linejoin="round"/></svg>',
  docs: [
    "https://mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/",
    "https://mailchimp.com/developer/marketing/guides/sync-audience-data-webhooks/",
    "https://mailchimp.com/developer/marketing/api/campaigns/list-campaigns/",
    "https://mailchimp.com/developer/marketing/docs/fundamentals/",
  ],
  oauth: {
    authorizeUrl: "https://login.mailchimp.com/oauth2/authorize",
    tokenUrl: "https://login.mailchimp.com/oauth2/token",
    scopes: [],
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  identity: {
    path: "/oauth2/metadata",
    idPath: "user_id",
    displayNamePath: "accountname",
    metadata: { dc: "dc", apiEndpoint: "api_endpoint", email: "login.email" },
  },
  // The Marketing API lives on the account's data centre: the metadata call's `api_endpoint`
  // (`https://us19.api.mailchimp.com`), kept as the connection's metadata. The version is part of the
  // base, as in the official SDK (@mailchimp/mailchimp_marketing `basePath`
  // `https://server.api.mailchimp.com/3.0`), so that SDK works with the proxy as its base.
  api: { baseUrl: "https://login.mailchimp.com", connectionBaseUrl: "{apiEndpoint}/3.0" },
  triggers: [
    {
      name: "campaign_created",
      displayName: "Campaign created",
      description: "A campaign was created in the account (read from the campaign list on a schedule).",
      providerEvent: "GET /campaigns",
      // One campaign as the list answers it (abridged to its documented main members).
      samplePayload: {
        id: "42694e9e57",
        web_id: 0,
        type: "regular",
        create_time: "2026-01-01T10:00:00+00:00",
        archive_url: "https://us19.campaign-archive.com/?u=abc&id=42694e9e57",
        long_archive_url: "https://us19.campaign-archive.com/?u=abc&id=42694e9e57",
        status: "save",
        emails_sent: 0,
        send_time: "",
        content_type: "template",
        recipients: { list_id: "57afe96172", list_name: "Freddie's Favorite Hats", recipient_count: 0 },
        settings: { subject_line: "New hats", title: "January newsletter", from_name: "Freddie", reply_to: "freddie@example.com" },
      },
    },
  ],
  polling: {
    triggers: {
      // Newest first, created after the newest one seen (`since_create_time`, ISO 8601).
      campaign_created: {
        request: { path: "/campaigns", query: { count: "100", sort_field: "create_time", sort_dir: "DESC", since_create_time: "{cursor}" } },
        items: "campaigns",
        id: "id",
        version: "create_time",
        occurredAt: ["create_time"],
        cursor: { from: "version" },
      },
    },
  },
});
