import { type Handshake, textReply } from "../../schemes/handshakes.ts";

/** The whole body of WooCommerce's ping: one form field, the webhook's numeric id. */
const WOOCOMMERCE_PING = /^webhook_id=\d{1,20}$/;

/**
 * WooCommerce: on creation a webhook POSTs, unsigned, the form body `webhook_id=<id>` and needs a
 * 2xx, else it is not activated (WC_Webhook::deliver_ping). Answered 200 with nothing stored;
 * it carries no event, so answering it proves nothing and forwards nothing.
 */
export const woocommercePing: Handshake = {
  type: "woocommerce_ping",
  stage: "before_verify",
  answer: (req) => ((req.method ?? "POST") === "POST" && WOOCOMMERCE_PING.test(req.rawBody.toString("utf8")) ? textReply("") : undefined),
};
