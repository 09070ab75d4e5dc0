import type { Handshake } from "../../schemes/handshakes.ts";

/**
 * Trello: a `HEAD` to the callback URL when a webhook is created, which must answer 200
 * (https://developer.atlassian.com/cloud/trello/guides/rest-api/webhooks/#creating-a-webhook).
 */
export const trelloHead: Handshake = {
  type: "trello_head",
  stage: "before_verify",
  answer: (req) => ((req.method ?? "POST") === "HEAD" ? { status: 200, contentType: "text/plain; charset=utf-8", body: "" } : undefined),
};
