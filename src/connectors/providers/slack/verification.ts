import { asString, parseJsonObject } from "../../json.ts";
import { type Handshake, textReply } from "../../schemes/handshakes.ts";

/** Slack Events API: `{"type":"url_verification","challenge":"…"}` (signed) → the challenge as text/plain. */
export const slackUrlVerification: Handshake = {
  type: "slack_url_verification",
  stage: "after_verify",
  answer(req) {
    const body = (req.method ?? "POST") === "POST" ? parseJsonObject(req.rawBody) : null;
    return body?.type === "url_verification" ? textReply(asString(body.challenge) ?? "") : undefined;
  },
};
