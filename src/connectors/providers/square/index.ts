/**
 * Square: OAuth 2.0 code flow (30-day access tokens with refresh tokens; the seller is the
 * merchant). Webhook subscriptions sign `x-square-hmacsha256-signature` = base64 HMAC-SHA256 of
 * the notification URL followed by the raw body, with the subscription's signature key; events
 * are routed by `merchant_id`.
 */
import { declareConnector } from "../../declaration.ts";

const merchant = "6SSW7HV8K2ST5";
const payment = {
  id: "KkAkhdMsgzn59SM8A89WgKwekxLZY",
  created_at: "2026-01-01T12:00:00.123Z",
  updated_at: "2026-01-01T12:00:00.456Z",
  amount_money: { amount: 1500, currency: "USD" },
  total_money: { amount: 1500, currency: "USD" },
  status: "APPROVED",
  source_type: "CARD",
  card_details: { status: "AUTHORIZED", card: { card_brand: "VISA", last_4: "1111", exp_month: 11, exp_year: 2028 }, entry_method: "KEYED" },
  location_id: "S8GWD5R9QB376",
  order_id: "03O3USaPaAaFnI6kkwB1JxGgBsUZY",
  version: 1,
};

export default declareConnector({
  name: "square",
  displayName: "Square",
  category: "commerce",
  description: "Payments, orders and customers of Square sellers.",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#111"/>' +
    '<rect x="5" y="5" width="14" height="14" rx="3" fill="none" stroke="#fff" stroke-width="2"/><rect x="9.5" y="9.5" width="5" height="5" rx="1" fill="#fff"/></svg>',
  docs: [
    "https://developer.squareup.com/docs/oauth-api/overview",
    "https://developer.squareup.com/docs/oauth-api/create-urls-for-square-authorization",
    "https://developer.squareup.com/reference/square/merchants-api/retrieve-merchant",
    "https://developer.squareup.com/docs/webhooks/step3validate",
    "https://developer.squareup.com/docs/webhooks/v2webhook-events-tech-ref",
  ],
  oauth: {
    authorizeUrl: "https://connect.squareup.com/oauth2/authorize",
    tokenUrl: "https://connect.squareup.com/oauth2/token",
    scopes: ["MERCHANT_PROFILE_READ", "PAYMENTS_READ", "ORDERS_READ", "CUSTOMERS_READ"],
    scopeDescriptions: {
      MERCHANT_PROFILE_READ: "Read your business profile and locations",
      PAYMENTS_READ: "Read your payments",
      ORDERS_READ: "Read your orders",
      CUSTOMERS_READ: "Read your customer directory",
    },
    scopeSeparator: " ",
    pkce: false,
    clientAuth: "client_secret_post",
    // session=false: the seller signs in again rather than reusing a Square Dashboard session.
    extraAuthorizeParams: { session: "false" },
    refresh: true,
  },
  identity: {
    path: "/v2/merchants/me",
    idPath: "merchant.id",
    displayNamePath: "merchant.business_name",
    metadata: { country: "merchant.country", currency: "merchant.currency", mainLocationId: "merchant.main_location_id" },
  },
  api: { baseUrl: "https://connect.squareup.com" },
  webhook: {
    // The URL Square called is part of the signed content: it must be the public URL registered there.
    scheme: { type: "hmac", header: "x-square-hmacsha256-signature", algorithm: "sha256", encoding: "base64", signedContent: "{url}{body}" },
    event: { path: "type" },
    routing: ["merchant_id"],
    deliveryId: { paths: ["event_id"] },
    occurredAt: ["created_at"],
  },
  triggers: [
    {
      name: "payment_created",
      displayName: "Payment created",
      description: "A payment was created.",
      providerEvent: "payment.created",
      samplePayload: {
        merchant_id: merchant,
        type: "payment.created",
        event_id: "13b867cf-db3d-4b1c-90b6-2f32a9d78124",
        created_at: "2026-01-01T12:00:00.469Z",
        data: { type: "payment", id: payment.id, object: { payment } },
      },
    },
    {
      name: "payment_updated",
      displayName: "Payment updated",
      description: "A payment changed (completed, canceled, refunded…).",
      providerEvent: "payment.updated",
      samplePayload: {
        merchant_id: merchant,
        type: "payment.updated",
        event_id: "6a8f5f28-54a1-4eb0-a98a-3111513fd4fc",
        created_at: "2026-01-01T12:00:05.812Z",
        data: {
          type: "payment",
          id: payment.id,
          object: { payment: { ...payment, status: "COMPLETED", updated_at: "2026-01-01T12:00:05.800Z", card_details: { ...payment.card_details, status: "CAPTURED" }, version: 2 } },
        },
      },
    },
    {
      name: "order_created",
      displayName: "Order created",
      description: "An order was created.",
      providerEvent: "order.created",
      samplePayload: {
        merchant_id: merchant,
        type: "order.created",
        event_id: "116038d3-2948-439f-8679-fc86cbf1ca26",
        created_at: "2026-01-01T11:59:58.104Z",
        data: {
          type: "order_created",
          id: "03O3USaPaAaFnI6kkwB1JxGgBsUZY",
          object: {
            order_created: {
              created_at: "2026-01-01T11:59:58.100Z",
              location_id: "S8GWD5R9QB376",
              order_id: "03O3USaPaAaFnI6kkwB1JxGgBsUZY",
              state: "OPEN",
              version: 1,
            },
          },
        },
      },
    },
    {
      name: "customer_created",
      displayName: "Customer created",
      description: "A customer profile was created.",
      providerEvent: "customer.created",
      samplePayload: {
        merchant_id: merchant,
        type: "customer.created",
        event_id: "e2bbd9b5-8ac5-4cf3-9b42-3a2a5e0c0f17",
        created_at: "2026-01-01T11:59:00.000Z",
        data: {
          type: "customer",
          id: "A0AP0ENJ3G1N3DZ3NMBS5R1C4C",
          object: {
            customer: {
              id: "A0AP0ENJ3G1N3DZ3NMBS5R1C4C",
              created_at: "2026-01-01T11:59:00.000Z",
              updated_at: "2026-01-01T11:59:00.000Z",
              given_name: "Amelia",
              family_name: "Earhart",
              email_address: "amelia.earhart@example.com",
              creation_source: "THIRD_PARTY",
              version: 0,
            },
          },
        },
      },
    },
  ],
});
