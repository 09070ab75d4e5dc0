/**
 * BigCommerce apps: OAuth 2.0 code flow at login.bigcommerce.com. The redirect back carries `code`,
 * `scope` and `context` (`stores/{store_hash}`), and the token request must send `context` and
 * `scope` back with the code (declared `callbackParams`); the answer holds a token that does not
 * expire, the installing `user` {id, email} and the same `context`. The store is the connection:
 * its external id is the `context`, its `store_hash` kept in metadata and filling the API base
 * `https://api.bigcommerce.com/stores/{store_hash}` (proxy paths start with /v2 or /v3), the token
 * sent as `X-Auth-Token`.
 * Per connection Switchyard creates one webhook per listed scope (`POST /v3/hooks` with `scope`,
 * `destination`, `is_active` and `headers`: a hook has one scope); BigCommerce does not sign its
 * deliveries but sends the hook's custom headers with each, so the subscription's own secret goes
 * in one and is compared inbound (token scheme). Deleted with `DELETE /v3/hooks/{id}`, looked up
 * every 6 hours (`GET /v3/hooks/{id}`).
 */
import { declareConnector } from "../../declaration.ts";
import { asRecord, asString } from "../../json.ts";

const STORE = "stores/g5cd38";
const hook = (scope: string, type: string, id: number, createdAt: number) => ({
  created_at: createdAt,
  store_id: "1025646",
  producer: STORE,
  scope,
  hash: "dd70c0976e06b67aaf671e73f49dcb79230ebf9d",
  data: { type, id },
});

export default declareConnector({
  name: "bigcommerce",
  displayName: "BigCommerce",
  category: "commerce",
  description: "Orders created and updated, products updated and customers created in a BigCommerce store.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#121118"/>' +
    '<path d="M7 6h6.5a3 3 0 0 1 0 6H7zM7 12h7.5a3 3 0 0 1 0 6H7z" stroke="#fff" stroke-width="1.8" fill="none" stroke-linejoin="round"/></svg>',
  docs: [
    "https://developer.bigcommerce.com/docs/integrations/apps/guide/auth",
    "https://developer.bigcommerce.com/docs/start/authentication/api-accounts",
    "https://developer.bigcommerce.com/docs/integrations/webhooks",
    "https://developer.bigcommerce.com/docs/integrations/webhooks/events",
    "https://developer.bigcommerce.com/docs/rest-management/webhooks",
  ],
  oauth: {
    authorizeUrl: "https://login.bigcommerce.com/oauth2/authorize",
    tokenUrl: "https://login.bigcommerce.com/oauth2/token",
    scopes: ["store_v2_orders_read_only", "store_v2_products_read_only", "store_v2_customers_read_only"],
    scopeDescriptions: {
      store_v2_orders_read_only: "Read the store's orders (and hear when they are created or updated)",
      store_v2_products_read_only: "Read the store's products",
      store_v2_customers_read_only: "Read the store's customers",
    },
    pkce: false,
    clientAuth: "client_secret_post",
    callbackParams: ["context", "scope"],
    refresh: false,
  },
  identity: {
    // Everything is in the token answer: the store (`context`) and the user who installed the app.
    async read({ token }) {
      const context = asString(token.context) ?? "";
      const match = /^stores\/([a-z0-9]{1,40})$/.exec(context);
      if (!match) throw new Error("BigCommerce's token answer names no store (context)");
      const user = asRecord(token.user) ?? {};
      const email = asString(user.email);
      return { externalId: context, displayName: email ?? context, metadata: { store_hash: match[1], user_id: user.id, email } };
    },
  },
  api: {
    baseUrl: "https://api.bigcommerce.com",
    auth: { style: "header", header: "x-auth-token", prefix: "" },
    connectionBaseUrl: "{baseUrl}/stores/{storeHash}",
    placeholders: { storeHash: "store_hash" },
  },
  webhook: {
    scheme: { type: "token", header: "x-switchyard-token" },
    event: { path: "scope" },
    routing: ["producer"],
    occurredAt: ["created_at"],
  },
  subscription: {
    resources: [
      { resource: "store/order/created", triggers: { order_created: ["store/order/created"] } },
      { resource: "store/order/updated", triggers: { order_updated: ["store/order/updated"] } },
      { resource: "store/product/updated", triggers: { product_updated: ["store/product/updated"] } },
      { resource: "store/customer/created", triggers: { customer_created: ["store/customer/created"] } },
    ],
    create: {
      method: "POST",
      path: "/v3/hooks",
      body: { scope: "{resource}", destination: "{subscriptionUrl}", is_active: true, headers: { "X-Switchyard-Token": "{secret}" } },
    },
    delete: { method: "DELETE", path: "/v3/hooks/{providerId}" },
    check: { method: "GET", path: "/v3/hooks/{providerId}", everySeconds: 6 * 60 * 60 },
    answer: { idPath: "data.id" },
    // Hooks do not expire (BigCommerce deactivates one only after failed deliveries).
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "order_created",
      displayName: "Order created",
      description: "An order was created in the store (store/order/created); the body names the order's id.",
      providerEvent: "store/order/created",
      samplePayload: hook("store/order/created", "order", 250, 1767261600),
    },
    {
      name: "order_updated",
      displayName: "Order updated",
      description: "An order changed (store/order/updated); the body names the order's id.",
      providerEvent: "store/order/updated",
      samplePayload: hook("store/order/updated", "order", 250, 1767265200),
    },
    {
      name: "product_updated",
      displayName: "Product updated",
      description: "A product's fields changed (store/product/updated); the body names the product's id.",
      providerEvent: "store/product/updated",
      samplePayload: hook("store/product/updated", "product", 205, 1767268800),
    },
    {
      name: "customer_created",
      displayName: "Customer created",
      description: "A customer account was created (store/customer/created); the body names the customer's id.",
      providerEvent: "store/customer/created",
      samplePayload: hook("store/customer/created", "customer", 32, 1767272400),
    },
  ],
});
