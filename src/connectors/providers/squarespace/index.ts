/**
 * Squarespace Commerce APIs: OAuth 2.0 authorization code for one website, comma-separated scopes,
 * `access_type=offline` for a refresh token, HTTP Basic client authentication; 30-minute access tokens.
 * The identity is the authorized website (`GET /1.0/authorization/website`). Connect only: webhook
 * subscriptions are created per website through the API with its token, each with its own secret.
 */
import { declareConnector } from "../../declaration.ts";

export default declareConnector({
  name: "squarespace",
  displayName: "Squarespace",
  category: "commerce",
  description: "Read the orders, products and inventory of a Squarespace website.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#121212"/>' +
    '<path d="M6 6h5v5H6zM13 6h5v5h-5zM6 13h5v5H6zM13 13h5v5h-5z" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
  docs: [
    "https://developers.squarespace.com/commerce-apis/authentication-and-permissions",
    "https://developers.squarespace.com/commerce-apis/retrieve-website-api",
    "https://developers.squarespace.com/commerce-apis/webhook-subscriptions-api",
  ],
  oauth: {
    authorizeUrl: "https://login.squarespace.com/api/1/login/oauth/provider/authorize",
    tokenUrl: "https://login.squarespace.com/api/1/login/oauth/provider/tokens",
    scopes: ["website.orders.read", "website.inventory.read"],
    scopeDescriptions: {
      "website.orders.read": "Read your website's orders",
      "website.inventory.read": "Read your website's inventory",
    },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_basic",
    extraAuthorizeParams: { access_type: "offline" },
    refresh: true,
  },
  identity: {
    path: "/1.0/authorization/website",
    idPath: "id",
    displayNamePath: "title",
    metadata: { url: "url" },
  },
  api: { baseUrl: "https://api.squarespace.com" },
});
