import { type AuthModeStrategy, neverRenewed, noCredentialForm } from "./strategy.ts";

/** Never authorized: Switchyard's own events (the `switchyard` connector). No authorization URL, no token to renew. */
export const none: AuthModeStrategy = {
  mode: "NONE",
  tokenType: "Bearer",
  connect: null,
  credentialFields: () => undefined,
  wireCredential: noCredentialForm("NONE"),
  canConnect: () => false,
  clientLabel: "OAuth client",
  serviceVariables: ["CLIENT_ID", "CLIENT_SECRET"],
  operatorClient: "oauthClient",
  connectNote: () => "",
  consentItems: () => [],
  renewable: () => false,
  renew: neverRenewed("NONE"),
};
