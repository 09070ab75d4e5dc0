import { parseJsonObject } from "../../json.ts";
import type { Handshake } from "../../schemes/handshakes.ts";

/** monday's challenges are random tokens; anything longer or with other characters is not one of monday's. */
const MONDAY_CHALLENGE = /^[A-Za-z0-9_.~+/=-]{1,512}$/;

/**
 * monday.com: a webhook's URL is checked with an unsigned POST `{"challenge":"…"}` and the same
 * JSON answered (https://developer.monday.com/api-reference/reference/webhooks#url-verification).
 */
export const mondayChallenge: Handshake = {
  type: "monday_challenge",
  stage: "before_verify",
  answer(req) {
    const body = (req.method ?? "POST") === "POST" ? parseJsonObject(req.rawBody) : null;
    if (!body || !("challenge" in body) || Object.keys(body).length !== 1) return undefined;
    const challenge = body.challenge;
    if (typeof challenge !== "string" || !MONDAY_CHALLENGE.test(challenge)) return { refused: "challenge must be 1 to 512 characters of a token." };
    return { status: 200, contentType: "application/json", body: JSON.stringify({ challenge }) };
  },
};
