/**
 * Stripe Connect (OAuth for Standard accounts): the connected account's id (acct_…) is what
 * Connect webhooks carry as `account`. Webhooks: `Stripe-Signature: t=…,v1=…` over
 * `{t}.{body}` with the Connect endpoint's signing secret (whsec_…), 5-minute tolerance.
 */
import { declareConnector } from "../../declaration.ts";

const account = "acct_1032D82eZvKYlo2C";

export default declareConnector({
  name: "stripe",
  displayName: "Stripe",
  category: "payments",
  description: "Payments, invoices and customers of Stripe accounts connected to your platform (Stripe Connect).",
  icon:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">' +
    '<rect width="24" height="24" rx="5" fill="#635bff"/>' +
    '<path d="M15.5 8.3c-1-.6-2.2-.9-3.3-.9-1.8 0-3 .9-3 2.3 0 3 5.7 2 5.7 4.3 0 .9-.9 1.5-2.3 1.5-1.3 0-2.6-.5-3.6-1.2" stroke="#fff" stroke-width="1.9" fill="none" stroke-linecap="round"/></svg>',
  docs: [
    "https://docs.stripe.com/connect/oauth-reference",
    "https://docs.stripe.com/api/accounts/retrieve",
    "https://docs.stripe.com/webhooks#verify-events",
    "https://docs.stripe.com/connect/webhooks",
    "https://docs.stripe.com/api/events/types",
  ],
  oauth: {
    authorizeUrl: "https://connect.stripe.com/oauth/authorize",
    tokenUrl: "https://connect.stripe.com/oauth/token",
    // One value, not a list: read_only or read_write.
    scopes: ["read_only"],
    scopeDescriptions: { read_only: "See your Stripe account's payments, customers and invoices (no changes)" },
    scopeSeparator: " ",
    pkce: false,
    // The platform's secret key is the client secret, sent in the body.
    clientAuth: "client_secret_post",
    // Connect access tokens do not expire; the refresh token is for rolling keys.
    refresh: false,
  },
  identity: {
    path: "/v1/account",
    idPath: "id",
    displayNamePath: "business_profile.name",
    metadata: { email: "email", country: "country", chargesEnabled: "charges_enabled" },
  },
  api: { baseUrl: "https://api.stripe.com" },
  webhook: {
    scheme: { type: "stripe", header: "stripe-signature", toleranceSeconds: 300 },
    event: { path: "type" },
    // Connect events name the connected account; platform-own events have no `account`.
    routing: ["account"],
    deliveryId: { paths: ["id"] },
    occurredAt: ["created"],
  },
  triggers: [
    {
      name: "invoice_paid",
      displayName: "Invoice paid",
      description: "An invoice was paid (in full, or marked paid out of band).",
      providerEvent: "invoice.paid",
      samplePayload: {
        id: "evt_1QeZ8nLkdIwHu7ixSkJvGgq1",
        object: "event",
        account,
        api_version: "2024-12-18.acacia",
        created: 1767261600,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: "invoice.paid",
        data: {
          object: {
            id: "in_1QeZ8mLkdIwHu7ixJ2n4Qz9X",
            object: "invoice",
            amount_due: 2000,
            amount_paid: 2000,
            currency: "usd",
            customer: "cus_RXgcMrJh4OaWby",
            customer_email: "jenny.rosen@example.com",
            hosted_invoice_url: "https://invoice.stripe.com/i/acct_1032D82eZvKYlo2C/test_YWNjdF8x",
            number: "C4B2E3F1-0001",
            paid: true,
            status: "paid",
            subscription: null,
          },
        },
      },
    },
    {
      name: "charge_succeeded",
      displayName: "Charge succeeded",
      description: "A charge was created and succeeded.",
      providerEvent: "charge.succeeded",
      samplePayload: {
        id: "evt_3QeZ9aLkdIwHu7ix0sM1xYzA",
        object: "event",
        account,
        api_version: "2024-12-18.acacia",
        created: 1767261700,
        livemode: false,
        pending_webhooks: 1,
        request: { id: "req_8sX2kL0qPz1mNa", idempotency_key: "5f2c7e1a-8b1d-4b6a-9d7e-0c5a3e2f1b9d" },
        type: "charge.succeeded",
        data: {
          object: {
            id: "ch_3QeZ9aLkdIwHu7ix0yH5c2Qw",
            object: "charge",
            amount: 2000,
            amount_captured: 2000,
            currency: "usd",
            customer: "cus_RXgcMrJh4OaWby",
            description: "Order #1042",
            paid: true,
            payment_intent: "pi_3QeZ9aLkdIwHu7ix0Gk3Tn8R",
            receipt_email: "jenny.rosen@example.com",
            status: "succeeded",
          },
        },
      },
    },
    {
      name: "payment_intent_succeeded",
      displayName: "Payment succeeded",
      description: "A PaymentIntent completed successfully.",
      providerEvent: "payment_intent.succeeded",
      samplePayload: {
        id: "evt_3QeZ9bLkdIwHu7ix1aB2cD3E",
        object: "event",
        account,
        api_version: "2024-12-18.acacia",
        created: 1767261701,
        livemode: false,
        pending_webhooks: 1,
        request: { id: "req_8sX2kL0qPz1mNa", idempotency_key: null },
        type: "payment_intent.succeeded",
        data: {
          object: {
            id: "pi_3QeZ9aLkdIwHu7ix0Gk3Tn8R",
            object: "payment_intent",
            amount: 2000,
            amount_received: 2000,
            currency: "usd",
            customer: "cus_RXgcMrJh4OaWby",
            latest_charge: "ch_3QeZ9aLkdIwHu7ix0yH5c2Qw",
            metadata: { order_id: "1042" },
            status: "succeeded",
          },
        },
      },
    },
    {
      name: "customer_created",
      displayName: "Customer created",
      description: "A new customer was created.",
      providerEvent: "customer.created",
      samplePayload: {
        id: "evt_1QeZ7xLkdIwHu7ixQ2wE3rT4",
        object: "event",
        account,
        api_version: "2024-12-18.acacia",
        created: 1767261500,
        livemode: false,
        pending_webhooks: 1,
        request: { id: "req_Yt5rE4wQ3a2S1d", idempotency_key: null },
        type: "customer.created",
        data: {
          object: {
            id: "cus_RXgcMrJh4OaWby",
            object: "customer",
            created: 1767261500,
            email: "jenny.rosen@example.com",
            livemode: false,
            metadata: {},
            name: "Jenny Rosen",
          },
        },
      },
    },
    {
      name: "checkout_session_completed",
      displayName: "Checkout completed",
      description: "A customer completed a Checkout Session.",
      providerEvent: "checkout.session.completed",
      samplePayload: {
        id: "evt_1QeZAaLkdIwHu7ixC5v6B7n8",
        object: "event",
        account,
        api_version: "2024-12-18.acacia",
        created: 1767261800,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type: "checkout.session.completed",
        data: {
          object: {
            id: "cs_test_a1b2c3d4e5f6g7h8i9j0",
            object: "checkout.session",
            amount_total: 2000,
            currency: "usd",
            customer: "cus_RXgcMrJh4OaWby",
            customer_details: { email: "jenny.rosen@example.com", name: "Jenny Rosen" },
            mode: "payment",
            payment_intent: "pi_3QeZ9aLkdIwHu7ix0Gk3Tn8R",
            payment_status: "paid",
            status: "complete",
          },
        },
      },
    },
  ],
});
