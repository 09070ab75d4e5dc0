import { type Handshake, textReply } from "../../schemes/handshakes.ts";

/** Dropbox's challenge, echoed: a token's characters, bounded. */
const ECHOED_CHALLENGE = /^[A-Za-z0-9_.~+/=-]{1,512}$/;

/** Dropbox: `GET ?challenge=…` → the challenge as text/plain (nosniff). */
export const dropboxChallenge: Handshake = {
  type: "dropbox_challenge",
  stage: "before_verify",
  answer(req) {
    const challenge = req.query?.get("challenge");
    if ((req.method ?? "POST") !== "GET" || !challenge) return undefined;
    // Echoed back: only what a challenge is made of, never markup or a large body.
    if (!ECHOED_CHALLENGE.test(challenge)) return { refused: "challenge must be 1 to 512 characters of A-Z, a-z, 0-9 and _ - . ~ + / =." };
    return textReply(challenge, { "x-content-type-options": "nosniff" });
  },
};
