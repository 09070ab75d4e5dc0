/**
 * WooCommerce REST API v3 on the store's own host: `https://{store}/wp-json/wc/v3`, where `store` is
 * the store's public host name (`shop.example.com`; a `hostname` parameter, so it is checked for
 * private addresses on every call in production). A consumer key and secret (WooCommerce →
 * Settings → Advanced → REST API) over HTTPS as HTTP Basic, checked with `GET /system_status`
 * (the store's `environment.home_url`).
 * Per connection Switchyard creates one webhook per listed topic (`POST /webhooks` with `name`,
 * `topic`, `delivery_url` and a `secret` of its own; a webhook has exactly one topic), deleted with
 * `DELETE /webhooks/{id}?force=true` and looked up every 6 hours (`GET /webhooks/{id}`).
 * WooCommerce signs each delivery `X-WC-Webhook-Signature` = base64 HMAC-SHA256 of the raw body
 * keyed by that secret, names the topic in `X-WC-Webhook-Topic` and the delivery in
 * `X-WC-Webhook-Delivery-ID`; on creation it POSTs an unsigned `webhook_id=<id>` ping that must be
 * answered 2xx (answered 200, nothing forwarded).
 */
import { declareConnector } from "../../declaration.ts";
import { woocommercePing } from "./verification.ts";

const address = { first_name: "John", last_name: "Doe", company: "", address_1: "969 Market", address_2: "", city: "San Francisco", state: "CA", postcode: "94103", country: "US" };

const order = {
  id: 727,
  parent_id: 0,
  number: "727",
  order_key: "wc_order_58d2d042d1d",
  created_via: "rest-api",
  version: "3.0.0",
  status: "processing",
  currency: "USD",
  date_created: "2026-01-01T12:00:00",
  date_created_gmt: "2026-01-01T12:00:00",
  date_modified: "2026-01-01T12:00:00",
  date_modified_gmt: "2026-01-01T12:00:00",
  discount_total: "0.00",
  shipping_total: "10.00",
  total: "29.35",
  total_tax: "1.35",
  customer_id: 0,
  billing: { ...address, email: "john.doe@example.com", phone: "(555) 555-5555" },
  shipping: address,
  payment_method: "bacs",
  payment_method_title: "Direct Bank Transfer",
  transaction_id: "",
  date_paid: "2026-01-01T12:00:00",
  date_completed: null,
  line_items: [{ id: 315, name: "Woo Single #1", product_id: 93, variation_id: 0, quantity: 2, subtotal: "6.00", total: "6.00", sku: "", price: 3 }],
};

const product = {
  id: 794,
  name: "Premium Quality",
  slug: "premium-quality-19",
  permalink: "https://shop.example.com/product/premium-quality-19/",
  date_created: "2026-01-02T09:00:00",
  date_created_gmt: "2026-01-02T09:00:00",
  date_modified: "2026-01-02T09:00:00",
  date_modified_gmt: "2026-01-02T09:00:00",
  type: "simple",
  status: "publish",
  sku: "",
  price: "21.99",
  regular_price: "21.99",
  sale_price: "",
  stock_status: "instock",
  categories: [{ id: 9, name: "Clothing", slug: "clothing" }],
};

const customer = {
  id: 25,
  date_created: "2026-01-03T10:00:00",
  date_created_gmt: "2026-01-03T10:00:00",
  date_modified: "2026-01-03T10:00:00",
  date_modified_gmt: "2026-01-03T10:00:00",
  email: "john.doe@example.com",
  first_name: "John",
  last_name: "Doe",
  role: "customer",
  username: "john.doe",
  billing: { ...address, email: "john.doe@example.com", phone: "(555) 555-5555" },
  shipping: address,
  is_paying_customer: false,
};

const signature = { type: "hmac", header: "x-wc-webhook-signature", algorithm: "sha256", encoding: "base64" } as const;

export default declareConnector({
  name: "woocommerce",
  displayName: "WooCommerce",
  category: "commerce",
  description: "Orders placed and updated, products and customers created in a WooCommerce store.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#7f54b3"/>' +
    '<path d="M5 8.5l1.6 7 2.4-5 2.4 5 1.6-7M15.5 12.5a2 2 0 1 0 4 0a2 2 0 1 0-4 0" stroke="#fff" stroke-width="1.6" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>',
  docs: [
    "https://woocommerce.github.io/woocommerce-rest-api-docs/#authentication",
    "https://woocommerce.github.io/woocommerce-rest-api-docs/#system-status",
    "https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks",
    "https://woocommerce.github.io/woocommerce-rest-api-docs/#create-a-webhook",
    "https://woocommerce.github.io/woocommerce-rest-api-docs/#delete-a-webhook",
    "https://developer.woocommerce.com/docs/apis/rest-api/v3/webhooks/",
    "https://woocommerce.com/document/webhooks/",
  ],
  authMode: "BASIC",
  params: [
    {
      name: "store",
      description: "The store's host name, as in its address (shop.example.com for https://shop.example.com)",
      pattern: "^[a-z0-9.-]{4,253}$",
      example: "shop.example.com",
      in: "hostname",
    },
  ],
  credentials: {
    fields: [
      {
        name: "consumer_key",
        label: "Consumer key",
        help: "In WordPress, open WooCommerce → Settings → Advanced → REST API and add a key with Read/Write permissions; it starts with ck_.",
        secret: false,
        pattern: "^ck_[a-f0-9]{40}$",
        example: "ck_0123456789abcdef0123456789abcdef01234567",
      },
      {
        name: "consumer_secret",
        label: "Consumer secret",
        help: "Shown once next to the consumer key when the key is made; it starts with cs_.",
        secret: true,
        pattern: "^cs_[a-f0-9]{40}$",
        example: "cs_0123456789abcdef0123456789abcdef01234567",
      },
    ],
    whereToFind: "https://woocommerce.com/document/woocommerce-rest-api/",
    // "over HTTPS … provide the Consumer Key as the username and the Consumer Secret as the password".
    basic: { username: "{consumer_key}", password: "{consumer_secret}" },
    test: { method: "GET", path: "/wp-json/wc/v3/system_status", idPath: "environment.home_url" },
  },
  // The proxy base: @woocommerce/woocommerce-rest-api: `url` is the store, it adds `/wp-json/wc/v3/` (https://woocommerce.github.io/woocommerce-rest-api-docs/).
  api: { baseUrl: "https://{store}", auth: { style: "basic" } },
  handshakes: [woocommercePing],
  webhook: {
    scheme: signature,
    event: { header: "x-wc-webhook-topic" },
    // Deliveries name the store only in X-WC-Webhook-Source (its URL with a trailing slash).
    routingHeaders: ["x-wc-webhook-source"],
    deliveryId: { header: "x-wc-webhook-delivery-id" },
    occurredAt: ["date_modified_gmt", "date_created_gmt"],
  },
  // One webhook per listed topic: a WooCommerce webhook has exactly one.
  subscription: {
    resources: [
      { resource: "order.created", triggers: { order_created: ["order.created"] } },
      { resource: "order.updated", triggers: { order_updated: ["order.updated"] } },
      { resource: "product.created", triggers: { product_created: ["product.created"] } },
      { resource: "customer.created", triggers: { customer_created: ["customer.created"] } },
    ],
    create: { method: "POST", path: "/wp-json/wc/v3/webhooks", body: { name: "Switchyard {resource}", status: "active", topic: "{resource}", delivery_url: "{subscriptionUrl}", secret: "{secret}" } },
    delete: { method: "DELETE", path: "/wp-json/wc/v3/webhooks/{providerId}?force=true" },
    check: { method: "GET", path: "/wp-json/wc/v3/webhooks/{providerId}", everySeconds: 6 * 60 * 60 },
    answer: { idPath: "id" },
    // WooCommerce webhooks do not expire; the lifetime is only what a re-creation would ask for.
    lifetimeSeconds: 365 * 24 * 60 * 60,
    secret: "generated",
    webhook: { keep: "all" },
  },
  triggers: [
    {
      name: "order_created",
      displayName: "Order created",
      description: "An order was placed in the store (topic order.created).",
      providerEvent: "order.created",
      samplePayload: order,
    },
    {
      name: "order_updated",
      displayName: "Order updated",
      description: "An order changed: its status, items or addresses (topic order.updated).",
      providerEvent: "order.updated",
      samplePayload: { ...order, status: "completed", date_modified: "2026-01-02T08:00:00", date_modified_gmt: "2026-01-02T08:00:00", date_completed: "2026-01-02T08:00:00" },
    },
    {
      name: "product_created",
      displayName: "Product created",
      description: "A product was added to the store (topic product.created).",
      providerEvent: "product.created",
      samplePayload: product,
    },
    {
      name: "customer_created",
      displayName: "Customer created",
      description: "A customer account was created (topic customer.created).",
      providerEvent: "customer.created",
      samplePayload: customer,
    },
  ],
});
