/**
 * Shopify: every store lives at its own `<shop>.myshopify.com`, so the connection parameter `shop`
 * fills the OAuth and Admin API hosts. OAuth 2.0 authorization code grant at /admin/oauth/authorize
 * and /admin/oauth/access_token (client secret in the body, comma-separated scopes, offline tokens
 * that do not expire, no PKCE). The Admin API takes the token in `X-Shopify-Access-Token`, not
 * `Authorization: Bearer`, so the shop is read with that header (the one piece of code here).
 * Webhooks sign `X-Shopify-Hmac-Sha256` = base64 HMAC-SHA256 of the raw body with the app's client
 * secret (set it as the webhook secret); the topic is `X-Shopify-Topic`, the store
 * `X-Shopify-Shop-Domain` (routed on), the event `X-Shopify-Event-Id` (the same on duplicates).
 */
import { declareConnector } from "../../declaration.ts";

/** A stable Admin API version (Shopify supports each for at least twelve months). */
const SHOP_PATH = "/admin/api/2026-01/shop.json";
const PROVIDER_TIMEOUT_MS = 15_000;

const order = {
  id: 820982911946154500,
  admin_graphql_api_id: "gid://shopify/Order/820982911946154508",
  name: "#9999",
  email: "jon@example.com",
  created_at: "2026-01-01T12:00:00-05:00",
  updated_at: "2026-01-01T12:00:00-05:00",
  currency: "USD",
  total_price: "403.00",
  financial_status: "pending",
  line_items: [{ id: 866550311766439000, title: "Aviator sunglasses", quantity: 1, price: "199.00", sku: "SKU2006-001" }],
};

export default declareConnector({
  name: "shopify",
  displayName: "Shopify",
  category: "commerce",
  description: "Orders and products of a Shopify store.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#5e8e3e"/><path d="M7 9h10l-1 10H8z" fill="#fff"/><path d="M10 9V7a2 2 0 0 1 4 0v2" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
  docs: [
    "https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/authorization-code-grant",
    "https://shopify.dev/docs/api/admin-rest/latest/resources/shop",
    "https://shopify.dev/docs/apps/build/webhooks",
    "https://shopify.dev/docs/apps/build/webhooks/subscribe/https",
    "https://shopify.dev/apps/build/webhooks/ignore-duplicates",
    "https://shopify.dev/docs/api/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://{shop}.myshopify.com/admin/oauth/authorize",
    tokenUrl: "https://{shop}.myshopify.com/admin/oauth/access_token",
    scopes: ["read_orders", "read_products"],
    scopeDescriptions: { read_orders: "Read your store's orders", read_products: "Read your store's products" },
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "client_secret_post",
    refresh: false,
  },
  params: [
    {
      name: "shop",
      description: "the store's myshopify.com name: acme-store for acme-store.myshopify.com.",
      pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
      example: "acme-store",
    },
  ],
  identity: {
    async read({ accessToken, apiUrl }) {
      const response = await fetch(`${apiUrl}${SHOP_PATH}`, {
        headers: { "x-shopify-access-token": accessToken, accept: "application/json", "user-agent": "Switchyard" },
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
      if (!response.ok) {
        await response.body?.cancel();
        throw new Error(`GET ${SHOP_PATH} answered HTTP ${response.status}`);
      }
      const { shop } = (await response.json()) as { shop?: { id?: unknown; name?: unknown; myshopify_domain?: unknown; email?: unknown; currency?: unknown } };
      const domain = typeof shop?.myshopify_domain === "string" ? shop.myshopify_domain.toLowerCase() : undefined;
      if (!domain) throw new Error(`GET ${SHOP_PATH} answered without shop.myshopify_domain`);
      // Webhooks name the store by its myshopify.com domain (X-Shopify-Shop-Domain): that is the id routed on.
      return {
        externalId: domain,
        displayName: typeof shop?.name === "string" ? shop.name : undefined,
        metadata: { shopId: shop?.id, email: shop?.email, currency: shop?.currency },
      };
    },
  },
  api: { baseUrl: "https://{shop}.myshopify.com" },
  webhook: {
    scheme: { type: "hmac", header: "x-shopify-hmac-sha256", algorithm: "sha256", encoding: "base64", signedContent: "{body}" },
    event: { header: "x-shopify-topic" },
    routingHeaders: ["x-shopify-shop-domain"],
    deliveryId: { header: "x-shopify-event-id" },
    occurredAt: ["updated_at", "created_at"],
    // The signature covers no timestamp: a replayed body is recognised within Shopify's 48-hour retry window.
    replayWindowSeconds: 48 * 3600,
  },
  triggers: [
    {
      name: "order_created",
      displayName: "Order created",
      description: "An order was placed in the store.",
      providerEvent: "orders/create",
      samplePayload: order,
    },
    {
      name: "order_paid",
      displayName: "Order paid",
      description: "An order's payment was completed.",
      providerEvent: "orders/paid",
      samplePayload: { ...order, financial_status: "paid" },
    },
    {
      name: "product_updated",
      displayName: "Product updated",
      description: "A product was changed.",
      providerEvent: "products/update",
      samplePayload: {
        id: 788032119674292900,
        admin_graphql_api_id: "gid://shopify/Product/788032119674292922",
        title: "Example T-Shirt",
        handle: "example-t-shirt",
        status: "active",
        created_at: "2026-01-01T12:00:00-05:00",
        updated_at: "2026-01-02T12:00:00-05:00",
      },
    },
  ],
});
