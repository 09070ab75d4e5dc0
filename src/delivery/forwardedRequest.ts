import { webhookSignature, webhookTimestamp } from "./sign.ts";

/** The event as forwarded: the fields of the body. */
export interface ForwardedEventFields {
  id: string;
  connector: string;
  trigger: string;
  account: string;
  occurredAt: Date | string;
  /** The event's data as JSON text: the worker's is the stored text, which it does not parse again. */
  payloadJson: string;
  /** The watched resource's params (§13); null or absent: not tied to a resource. */
  resource?: Record<string, string> | null;
}

/**
 * The forwarded body: the event's fields in this order, `resource` beside `account`, then `data`.
 * `data` is the payload's text put in as it is: parsing the stored text only to print it again cost
 * the worker a parse and most of a stringify per attempt, and the text is the same on every attempt.
 */
export function forwardedBody(event: ForwardedEventFields, deploymentId: string): string {
  const fields = JSON.stringify({
    id: event.id,
    type: `${event.connector}.${event.trigger}`,
    connector: event.connector,
    trigger: event.trigger,
    account: event.account,
    resource: event.resource ?? null,
    deploymentId,
    occurredAt: typeof event.occurredAt === "string" ? event.occurredAt : event.occurredAt.toISOString(),
  });
  return `${fields.slice(0, -1)},"data":${event.payloadJson}}`;
}

export interface ForwardedRequestInput {
  eventId: string;
  /** forwardedBody(…); not read when the signature is masked. */
  body: string;
  /** The attempt's time: `webhook-timestamp` and what the signature covers. */
  at: Date;
  userAgent: string;
  /** The operator's header (FORWARDING header key and value), sent first. */
  operatorHeader?: { name: string; value: string } | null;
  /**
   * The signing secrets in force, current first (webhookSignature throws on none: a deployment
   * always has one); `{ masked }` writes that in place of a signature (the attempt detail shows no
   * secret); undefined sends no signature (`switchyard listen` without a secret).
   */
  signing?: readonly string[] | { masked: string };
}

/**
 * The one place the forwarded request's headers are written (Standard Webhooks, plus the operator's
 * header): used by the delivery worker, `switchyard listen` and the attempt detail in GraphQL, so a
 * local handler and the console see what production sends, in the same order.
 */
export function buildForwardedRequest({ eventId, body, at, userAgent, operatorHeader, signing }: ForwardedRequestInput) {
  const headers: Record<string, string> = {};
  if (operatorHeader) headers[operatorHeader.name] = operatorHeader.value;
  headers["content-type"] = "application/json";
  headers["user-agent"] = userAgent;
  // Standard Webhooks: the event id (the same on every retry and replay, so receivers deduplicate
  // on it) and this attempt's time, which the signature covers with the body.
  const timestamp = webhookTimestamp(at);
  headers["webhook-id"] = eventId;
  headers["webhook-timestamp"] = timestamp;
  if (signing) headers["webhook-signature"] = "masked" in signing ? signing.masked : webhookSignature(signing, eventId, timestamp, body);
  return { body, headers };
}
