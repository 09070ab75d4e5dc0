import { type Handshake, textReply } from "../../schemes/handshakes.ts";

/** Graph's validationToken, echoed: printable ASCII with nothing markup is made of, bounded. */
const GRAPH_VALIDATION_TOKEN = /^[\x20-\x7e]{1,1024}$/;
const MARKUP = /[<>&"']/;

/** Microsoft Graph: `POST ?validationToken=…` → the token (URL-decoded) as text/plain within 10 s. */
export const graphValidationToken: Handshake = {
  type: "graph_validation_token",
  stage: "before_verify",
  answer(req) {
    const token = req.query?.get("validationToken");
    if (!token) return undefined;
    // Graph's token is a sentence of printable ASCII ("Validation: Testing client application reachability … Request-Id: <uuid>").
    if (!GRAPH_VALIDATION_TOKEN.test(token) || MARKUP.test(token)) return { refused: "validationToken must be 1 to 1024 printable ASCII characters without < > & \" or '." };
    return textReply(token, { "x-content-type-options": "nosniff" });
  },
};
